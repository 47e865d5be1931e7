"""Ctrl-C while a sweep plays asks it to stop instead of raising where its thread is."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests.support.paths import ROOT
from zork_mcp.app.sweep.ctrl_c import ctrl_c_stops


@pytest.fixture
def handler():
    previous = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_sets_the_stop_inside_and_raises_again_after(handler):
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with ctrl_c_stops() as stop:
        signal.raise_signal(signal.SIGINT)  # would raise KeyboardInterrupt here
        assert stop.is_set()
        signal.raise_signal(signal.SIGINT)  # again: nothing more
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)


def test_a_sweep_that_ignores_ctrl_c_goes_on_ignoring_it(handler):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # started in the background (`&`)
    with ctrl_c_stops() as stop:
        signal.raise_signal(signal.SIGINT)
    assert not stop.is_set() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN


@pytest.mark.slow  # a process of its own: a sweep that hangs is ended by the timeout
def test_a_ctrl_c_as_the_sweep_takes_its_futures_locks_stops_it_and_leaves_none_held():
    """Raised there, a KeyboardInterrupt left a future's lock held, and the sweep hung for
    ever as it stopped (`raises` does); the app's sweep takes Ctrl-C as its stop."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.ctrl_c_while_waiting", "stops"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout.split()) == (0, ["True", "2"]), done.stderr
