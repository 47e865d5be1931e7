"""Ctrl-C while a sweep plays asks its scheduler to stop, rather than raising a
KeyboardInterrupt wherever the sweep's thread happens to be: between two steps of storing an
episode, of starting a worker, of taking the locks of the futures it waits on (one left
held would have hung the sweep). The scheduler looks between its steps (within
`POLL_SECONDS`); Ctrl-C again stops nothing more."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def ctrl_c_stops() -> Iterator[threading.Event]:
    """The event Ctrl-C sets while inside (in the main thread; a process that ignores
    Ctrl-C, started in the background, goes on ignoring it)."""
    stop = threading.Event()
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield stop
        return
    signal.signal(signal.SIGINT, lambda _signal, _frame: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)
