"""A call that must return promptly: a test of something that could hang (a pipe opened with
no one at its other end) fails in seconds instead of waiting for ever."""

from __future__ import annotations

import threading
from collections.abc import Callable

PROMPTLY = 10.0  # seconds: a call that has not returned by then is a hang


def within(seconds: float, call: Callable[[], object]) -> object:
    """`call`'s result (or the exception it raised), failing if it takes longer."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as e:
            outcome.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    return outcome[0]
