"""The rules a confined process is given (what it may read, write, connect to), and the
game process's own: pure, and light enough for the game process to import (no pydantic), so
that each game it forks keeps only its emulator's pages (issue 56). A server's policy, which
reads its config entry, is `confinement`'s."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Any

SYSTEM_READ = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt")
SYSTEM_WIDE_PROC = (  # what runtimes read of /proc that describes no process
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/loadavg",
    "/proc/version",
    "/proc/filesystems",
    "/proc/sys/kernel",
    "/proc/sys/vm/overcommit_memory",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
)
DEVICES_READ = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full")
DEVICES_WRITE = ("/dev/null", "/dev/zero", "/dev/full")
NO_PORTS: tuple[int, ...] = ()


class Network(StrEnum):
    """Where a confined process's connections can go."""

    OPEN = "open"  # the host's network, TCP to the allowed ports only (Landlock)
    ISOLATED = "isolated"  # a network namespace of its own with loopback alone: nowhere
    PROXIED = "proxied"  # isolated, and the proxy relays HTTPS to its listed hosts


@dataclass(frozen=True)
class Confinement:
    """What a confined process may still do; everything else is denied."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    connect_ports: tuple[int, ...] = NO_PORTS
    scoped: bool = True  # no signal and no abstract unix socket out of its own processes
    listed: tuple[str, ...] = ()  # folders whose names may be listed, no file in them read
    removable: tuple[str, ...] = ()  # folders whose empty subfolders may be removed
    network: Network = Network.OPEN
    # Namespaces of its own (adapters/posix/namespaces.py): its tree read-only but `write`,
    # no device opened there, no capability, every process it starts ending with it.
    sealed: bool = False

    def writing(self, folder: str) -> Confinement:
        """These rules for one process, with its private folder writable: a server's policy
        is decided once, and each start only adds the folder made for it."""
        return replace(self, write=(folder, *self.write))

    def as_dict(self) -> dict[str, Any]:
        """What `adapters/posix/landlock.build_ruleset` is given (the network's namespace is
        the process's own doing, before it)."""
        return {
            "read": self.read,
            "write": self.write,
            "connect_ports": self.connect_ports,
            "scoped": self.scoped,
            "listed": self.listed,
            "removable": self.removable,
        }


def emulator_confinement(
    python_paths: Sequence[str], story: str, folder: str, cwd: str, home: str
) -> Confinement:
    """The game process: Python, Jericho and its story file read-only, its private folder
    writable, no TCP port, scoped; it may remove its folder once empty (a right on the folder
    above, limited to empty folders), as it does when it ends, even after its parent died."""
    read = [
        *SYSTEM_READ,
        *SYSTEM_WIDE_PROC,
        *DEVICES_READ,
        *outside(python_paths, (cwd, home)),
        story,
    ]
    above = str(PurePosixPath(folder).parent)
    write = unique([folder, *DEVICES_WRITE])
    return Confinement(unique(read), write, NO_PORTS, removable=(above,))


def outside(paths: Iterable[str], guarded: Sequence[str]) -> list[str]:
    """`paths` minus any that is a guarded folder or holds one (`/`, the working folder)."""
    kept = []
    for path in paths:
        folder = PurePosixPath(path)
        if not folder.is_absolute():
            continue
        if any(folder == PurePosixPath(g) or folder in PurePosixPath(g).parents for g in guarded):
            continue
        kept.append(path)
    return kept


def unique(paths: Iterable[str]) -> tuple[str, ...]:
    """Each path once, and none beneath another: a rule grants its rights beneath its
    folder, so such a path is a rule the kernel would check for nothing (each costs a start
    ~20 µs)."""
    kept = dict.fromkeys(paths)
    return tuple(path for path in kept if not any(_beneath(path, other) for other in kept))


def _beneath(path: str, folder: str) -> bool:
    return path != folder and path.startswith(folder.rstrip("/") + "/")
