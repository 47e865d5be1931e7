"""The numbers the benchmarks are watched by (issue 56): `benchmarks/baseline.json`, kept in
the repository per release, and the check a run makes against it.

A benchmark names its headline numbers and the sizes it ran at. A run at sizes the file has
an entry for (the quick mode's among them, which the tests run) fails when a number is worse
than its baseline by more than its margin. Memory is compared as measured: on one machine it
repeats within a few percent. A time is compared only as a ratio of two times measured in the
same run (efficiency: ideal wall over wall), never in seconds. `--record` writes the run's
numbers as the new baseline, with the release and the day.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

BASELINE = Path(__file__).with_name("baseline.json")
MEMORY_MARGIN = 0.25  # a quick run's peak PSS varies ~5%; the issue-56 growth was +36%
RATIO_MARGIN = 0.10  # a wide sweep's efficiency repeats within ~0.03


@dataclass(frozen=True)
class Headline:
    """One watched number: `name` in `unit`, better when `better`; worse than its baseline
    by more than `margin` (a fraction of the baseline) is a regression."""

    name: str
    value: float
    unit: str
    better: Literal["lower", "higher"]
    margin: float

    def regression(self, baseline: float) -> str | None:
        """What is wrong with this number against `baseline`, or None."""
        if self.better == "lower":
            limit, worse = baseline * (1 + self.margin), self.value > baseline * (1 + self.margin)
        else:
            limit, worse = baseline * (1 - self.margin), self.value < baseline * (1 - self.margin)
        if not worse:
            return None
        return (
            f"{self.name} {self.value:.2f} {self.unit} is worse than its baseline "
            f"{baseline:.2f} {self.unit} by more than {self.margin:.0%} (limit {limit:.2f})"
        )


def memory(name: str, megabytes: float) -> Headline:
    return Headline(name, megabytes, "MB", "lower", MEMORY_MARGIN)


def ratio(name: str, value: float) -> Headline:
    return Headline(name, value, "x", "higher", RATIO_MARGIN)


def regressions(
    benchmark: str, sizes: str, headlines: Sequence[Headline], path: Path = BASELINE
) -> list[str]:
    """Each headline worse than the baseline recorded for `benchmark` at `sizes`; none when
    the file has no such entry (a run at sizes nobody recorded is not judged)."""
    recorded = _read(path).get("benchmarks", {}).get(benchmark, {}).get(sizes, {})
    numbers = recorded.get("numbers", {})
    found = (h.regression(float(numbers[h.name])) for h in headlines if h.name in numbers)
    return [text for text in found if text is not None]


def record(
    benchmark: str, sizes: str, headlines: Sequence[Headline], path: Path = BASELINE
) -> None:
    """The run's numbers as `benchmark`'s baseline at `sizes`, under this release."""
    from zork_mcp import __version__

    data = _read(path)
    data["release"] = __version__
    entry = {
        "release": __version__,
        "measured": datetime.date.today().isoformat(),
        "numbers": {h.name: round(h.value, 3) for h in headlines},
    }
    data.setdefault("benchmarks", {}).setdefault(benchmark, {})[sizes] = entry
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def judge(
    benchmark: str,
    sizes: str,
    headlines: Sequence[Headline],
    *,
    write: bool = False,
    path: Path = BASELINE,
) -> None:
    """Print the headlines; record them (`write`), or exit 1 naming each regression."""
    for headline in headlines:
        print(f"headline {headline.name}: {headline.value:.2f} {headline.unit}")
    if write:
        record(benchmark, sizes, headlines, path)
        print(f"recorded as the baseline of {benchmark} at {sizes!r} in {path.name}")
        return
    found = regressions(benchmark, sizes, headlines, path)
    if found:
        lines = "\n".join(f"  {text}" for text in found)
        raise SystemExit(
            f"{benchmark} regressed against {path.name} ({sizes}):\n{lines}\n"
            f"Find the cause; if the change is meant, rerun with --record and commit {path.name}."
        )


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}
