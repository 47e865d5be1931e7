"""Starting a child that never takes the terminal's Ctrl-C, from its first instruction on.

A terminal sends Ctrl-C's SIGINT to its whole foreground process group, children
included. A spawned Python child installs its KeyboardInterrupt as it starts, and can only
ignore SIGINT once its own code runs, after its imports (seconds): a Ctrl-C meanwhile
killed it with a traceback. So the parent holds SIGINT (blocks it) in the thread that
starts the child, which is born holding it too: a Ctrl-C then waits in the child, which
drops it as it ignores SIGINT and lets go. The stdlib starts its resource tracker this way
(multiprocessing/resource_tracker.py), and lets go of SIGINT after it rather than restore
the mask it found: so it is started first.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Children started inside, in this thread, are born holding SIGINT. This process's
    own Ctrl-C is not lost: another thread takes it, or it arrives on leaving."""
    resource_tracker.ensure_running()  # a multiprocessing start would unblock SIGINT
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def ignore_ctrl_c() -> None:
    """In a child born holding SIGINT (its main thread): ignore it, dropping one that came
    while it started, then let go of it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
