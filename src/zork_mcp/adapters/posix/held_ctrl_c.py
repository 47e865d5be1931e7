"""Starting a child that never takes the terminal's Ctrl-C, from its first instruction on.

A terminal sends Ctrl-C's SIGINT to its whole foreground process group, children
included. A spawned Python child installs its KeyboardInterrupt as it starts, and can only
ignore SIGINT once its own code runs, after its imports (seconds): a Ctrl-C meanwhile
killed it with a traceback. So the parent holds SIGINT (blocks it) in the thread that
starts the child, which is born holding it too: a Ctrl-C then waits in the child, which
drops it as it ignores SIGINT and lets go. The stdlib starts its resource tracker this way
(multiprocessing/resource_tracker.py), and lets go of SIGINT after it rather than restore
the mask it found: so it is started first.

The parent's own Ctrl-C waits too, in its main thread: raised in the middle of a start, it
left a child started but never sent what it was to run (it died of that, with a traceback),
or one the parent had lost track of, and so could not stop.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker
from types import FrameType


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Children started inside, in this thread, are born holding SIGINT. This process's
    own Ctrl-C is not lost: in the main thread it is raised on leaving, once what was
    started inside is whole (another thread takes the signal meanwhile, or none does and
    it arrives as the mask is restored)."""
    resource_tracker.ensure_running()  # a multiprocessing start would unblock SIGINT
    pressed: list[FrameType | None] = []
    handler = signal.getsignal(signal.SIGINT)
    deferred = threading.current_thread() is threading.main_thread() and callable(handler)
    if deferred:
        signal.signal(signal.SIGINT, lambda _, frame: pressed.append(frame))
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if deferred:
            signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if pressed and callable(handler):
            handler(signal.SIGINT, pressed[0])


def ignore_ctrl_c() -> None:
    """In a child born holding SIGINT (its main thread): ignore it, dropping one that came
    while it started, then let go of it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
