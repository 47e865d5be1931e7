"""Small helpers shared by the benchmark scripts: percentiles and plain tables."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path


def cpu_ms(pid: int | str) -> float:
    """A live process's own CPU so far, every thread's, to the nanosecond (schedstat)."""
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return sum(int((task / "schedstat").read_text().split()[0]) for task in tasks) / 1e6


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def timing_row(name: str, seconds: Sequence[float]) -> list[str]:
    ms = [1000 * s for s in seconds]
    return [
        name,
        str(len(ms)),
        f"{statistics.median(ms):.2f}",
        f"{percentile(ms, 0.95):.2f}",
        f"{max(ms):.2f}",
    ]


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows, strict=True)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
