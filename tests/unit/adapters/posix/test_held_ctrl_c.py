"""A child started with Ctrl-C held is born holding SIGINT, and the parent's own Ctrl-C
meanwhile comes once the start is whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from zork_mcp.adapters.posix.held_ctrl_c import ctrl_c_held

BLOCKED = "import signal; print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))"


@pytest.fixture
def as_a_terminal_sets_it():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_child_started_inside_is_born_holding_sigint(as_a_terminal_sets_it):
    with ctrl_c_held():
        child = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True)
    assert child.stdout.strip() == "True"
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_a_ctrl_c_inside_is_raised_once_what_was_started_is_whole(as_a_terminal_sets_it):
    """Another thread takes the signal (a sweep's reader threads would), and the main
    thread's KeyboardInterrupt waits for the end of the block."""
    finished = False
    with pytest.raises(KeyboardInterrupt), ctrl_c_held():
        other = threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGINT))
        other.start()
        other.join()
        time.sleep(0.1)  # bytecodes run: a KeyboardInterrupt would be raised by now
        finished = True
    assert finished
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
