"""What the benchmark scripts share: their command line's `--quick`, percentiles, tables."""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

QUICK_HELP = (
    "tiny sizes, to check in seconds that the benchmark still runs (tests/benchmarks runs "
    "every benchmark so); its numbers mean nothing"
)


def parse_arguments(
    parser: argparse.ArgumentParser, quick: Mapping[str, object]
) -> argparse.Namespace:
    """The command line, given `--quick`: then `quick`'s sizes replace the defaults (an
    option given on the command line still wins), and the defaults stay the normal run's."""
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    options = parser.parse_args()
    unknown = sorted(name for name in quick if not hasattr(options, name))
    if unknown:
        raise ValueError(f"--quick sets {unknown}, which are not options of {parser.prog}")
    if options.quick:
        parser.set_defaults(**quick)
        options = parser.parse_args()
    return options


def listed(
    parser: argparse.ArgumentParser, option: str, value: str, allowed: Sequence[str]
) -> list[str]:
    """A comma-separated option's names, each one of `allowed`, or the usage error naming
    the option, what was wrong and what it takes."""
    names = [name.strip() for name in value.split(",")]
    if unknown := [name for name in names if name not in allowed]:
        parser.error(f"{option}: {', '.join(unknown)} is not one of {', '.join(allowed)}")
    return names


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
