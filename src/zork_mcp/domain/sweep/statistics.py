"""Bootstrap confidence intervals for the mean score of a cell and for MCP on minus off."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20261123


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float

    def includes(self, x: float) -> bool:
        return self.low <= x <= self.high


def mean_ci(values: Sequence[float], *, seed: int = SEED) -> Estimate:
    """The mean with its 95% percentile-bootstrap CI (a point CI for fewer than 2 values)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return Estimate(math.nan, math.nan, math.nan)
    mean = float(data.mean())
    if data.size < 2 or np.all(data == data[0]):
        return Estimate(mean, mean, mean)
    result = stats.bootstrap(
        (data,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return Estimate(
        mean, float(result.confidence_interval.low), float(result.confidence_interval.high)
    )


def difference_ci(
    treated: Sequence[float], control: Sequence[float], *, seed: int = SEED
) -> Estimate:
    """mean(treated) - mean(control) with a 95% bootstrap CI, each group resampled on its own."""
    a, b = np.asarray(treated, dtype=float), np.asarray(control, dtype=float)
    if a.size == 0 or b.size == 0:
        return Estimate(math.nan, math.nan, math.nan)
    value = float(a.mean() - b.mean())
    if a.size < 2 or b.size < 2:
        return Estimate(value, math.nan, math.nan)
    result = stats.bootstrap(
        (a, b),
        lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    interval = result.confidence_interval
    low = value if math.isnan(interval.low) else float(interval.low)
    high = value if math.isnan(interval.high) else float(interval.high)
    return Estimate(value, low, high)


def mean_curve(trajectories: Sequence[Sequence[float]], *, seed: int = SEED) -> list[Estimate]:
    """Per turn, the mean over episodes (an ended episode keeps its last score) with its CI."""
    if not trajectories:
        return []
    length = max(len(t) for t in trajectories)
    padded = [list(t) + [t[-1] if t else 0.0] * (length - len(t)) for t in trajectories]
    return [mean_ci([row[turn] for row in padded], seed=seed) for turn in range(length)]
