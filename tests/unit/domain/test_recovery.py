"""The circuit breaker's threshold: a count of failures, so at least one."""

from __future__ import annotations

import pytest

from zork_mcp.domain.loop.recovery import CircuitBreaker


def test_a_breaker_threshold_below_one_is_refused_saying_what_it_got():
    with pytest.raises(ValueError, match=r"^breaker threshold must be at least 1, got 0$"):
        CircuitBreaker(0)
