"""Waiting until one descriptor is readable, whatever its number.

`select.select` refuses descriptors numbered 1024 and above (FD_SETSIZE), and a sweep
worker playing dozens of episodes holds more than that: its games' pipes, its MCP
servers' pipes and pidfds, its log files. `poll` has no such limit. As with select, a
pipe or socket at end of file and a process's pidfd once it has exited count as readable.
"""

from __future__ import annotations

import select
from typing import Protocol


class HasFileno(Protocol):
    def fileno(self) -> int: ...


def wait_readable(fd: int | HasFileno, timeout: float | None) -> bool:
    """Whether fd became readable within `timeout` seconds (None: wait as long as it takes)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(None if timeout is None else max(0.0, timeout) * 1000))
