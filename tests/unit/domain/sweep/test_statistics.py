"""The bootstrap estimates behind the report: what each interval must hold for any sample."""

from __future__ import annotations

import math
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from zork_mcp.domain.sweep.statistics import SEED, Estimate, difference_ci, mean_ci, mean_curve

scores = st.lists(st.integers(0, 350), min_size=2, max_size=30)


@settings(max_examples=20, deadline=None)
@given(scores)
def test_the_mean_lies_in_its_interval_within_the_sample_range(sample):
    estimate = mean_ci(sample)
    assert math.isclose(estimate.value, sum(sample) / len(sample))
    assert min(sample) <= estimate.low <= estimate.value + 1e-9
    assert estimate.value - 1e-9 <= estimate.high <= max(sample)


@settings(max_examples=20, deadline=None)
@given(scores, scores)
def test_the_difference_is_treated_minus_control_and_its_interval_holds_it(treated, control):
    estimate = difference_ci(treated, control)
    assert math.isclose(estimate.value, sum(treated) / len(treated) - sum(control) / len(control))
    assert estimate.low <= estimate.value + 1e-9 <= estimate.high + 2e-9
    swapped = difference_ci(control, treated)
    assert math.isclose(swapped.value, -estimate.value, abs_tol=1e-9)


@settings(max_examples=15, deadline=None)
@given(scores, st.integers(1, 100))
def test_a_shift_larger_than_the_spread_is_a_difference_that_excludes_zero(sample, gap):
    shifted = [s + (max(sample) - min(sample)) + gap for s in sample]
    assert not difference_ci(shifted, sample).includes(0)


def test_the_same_sample_twice_gives_a_difference_interval_around_zero():
    sample = [0, 5, 5, 10, 15, 15, 0, 5]
    estimate = difference_ci(sample, list(reversed(sample)))
    assert estimate.value == 0 and estimate.low < 0 < estimate.high


def test_estimates_are_reproducible_and_degenerate_samples_have_point_intervals():
    assert mean_ci([1, 7, 9, 2]) == mean_ci([1, 7, 9, 2])
    assert (mean_ci([4, 4, 4]).low, mean_ci([4, 4, 4]).high) == (4, 4)
    assert math.isnan(mean_ci([]).value)
    assert math.isnan(difference_ci([3], [1, 2]).low) and difference_ci([3], [1, 2]).value == 1.5


def test_an_ended_episode_keeps_its_last_score_in_the_curve():
    curve = mean_curve([[0, 5, 10], [0, 5]])
    assert [round(e.value, 1) for e in curve] == [0, 5, 7.5]


def _scipy_percentile_interval(groups, statistic, seed):
    interval = stats.bootstrap(
        tuple(np.asarray(g, dtype=float) for g in groups),
        statistic,
        confidence_level=0.95,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    return float(interval.low), float(interval.high)


SPREAD = [3, 41, 7, 19, 28, 0, 35, 12, 25, 9, 16, 30]
OTHER = [1, 4, 0, 9, 2, 15, 6, 3, 11, 5]


def test_the_mean_interval_is_scipys_95_percent_percentile_bootstrap_of_2000_resamples():
    for seed in (SEED, 7):
        estimate = mean_ci(SPREAD, seed=seed)
        assert (estimate.low, estimate.high) == _scipy_percentile_interval([SPREAD], np.mean, seed)


def test_the_difference_interval_is_scipys_percentile_bootstrap_of_each_group_on_its_own():
    def difference(x, y, axis=-1):
        return np.mean(x, axis=axis) - np.mean(y, axis=axis)

    for seed in (SEED, 7):
        estimate = difference_ci(SPREAD, OTHER, seed=seed)
        reference = _scipy_percentile_interval([SPREAD, OTHER], difference, seed)
        assert (estimate.low, estimate.high) == reference


def test_the_seed_alone_decides_the_interval():
    assert mean_ci(SPREAD, seed=7) == mean_ci(SPREAD, seed=7) != mean_ci(SPREAD, seed=8)
    assert difference_ci(SPREAD, OTHER) == difference_ci(SPREAD, OTHER)
    assert difference_ci(SPREAD, OTHER, seed=7) != difference_ci(SPREAD, OTHER, seed=8)


def test_two_scores_are_resampled_not_taken_as_a_point():
    # Resampling [0, 10] gives means 0, 5 and 10 with chances 1/4, 1/2, 1/4, so the 2.5th and
    # 97.5th percentiles are the two scores themselves.
    assert mean_ci([0, 10]) == Estimate(5, 0, 10)


def test_an_empty_sample_has_no_value_and_no_bounds():
    for estimate in (mean_ci([]), difference_ci([], [1, 2]), difference_ci([1, 2], [])):
        assert all(math.isnan(x) for x in (estimate.value, estimate.low, estimate.high))


def test_a_group_of_one_has_a_difference_but_no_interval():
    for estimate, value in ((difference_ci([3], [1, 2]), 1.5), (difference_ci([1, 2], [3]), -1.5)):
        assert estimate.value == value
        assert math.isnan(estimate.low) and math.isnan(estimate.high)


def test_an_empty_group_warns_of_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        difference_ci([], [1, 2])
        difference_ci([1, 2], [])


def test_an_interval_includes_its_own_bounds():
    estimate = Estimate(5, 0, 10)
    assert estimate.includes(0) and estimate.includes(10) and estimate.includes(5)
    assert not estimate.includes(-0.5) and not estimate.includes(10.5)


def test_the_curve_keeps_each_episodes_last_score_and_counts_an_empty_one_as_zero():
    curve = mean_curve([[0, 5, 10, 20], [0, 5, 8], []])
    assert [e.value for e in curve] == [0, 10 / 3, 6, 28 / 3]


def test_the_curve_uses_the_seed_it_is_given_for_every_turn():
    trajectories = [[0, score, score + other] for score, other in zip(SPREAD, OTHER, strict=False)]
    for seed in (7, 8):
        curve = mean_curve(trajectories, seed=seed)
        assert curve == [mean_ci(turn, seed=seed) for turn in zip(*trajectories, strict=True)]
