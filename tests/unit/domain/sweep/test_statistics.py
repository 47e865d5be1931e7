"""The bootstrap estimates behind the report: what each interval must hold for any sample."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.domain.sweep.statistics import difference_ci, mean_ci, mean_curve

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
