"""One installer at a time into a folder of .cache/: parallel test workers (pytest-xdist)
and a second test session on the same checkout each find a first install under way and
wait for it, rather than installing over it or removing it mid-way."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def installing(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock beside `folder` (`<folder>.lock`) while installing into it; the
    lock goes with the process, so a killed installer never blocks the next one."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
