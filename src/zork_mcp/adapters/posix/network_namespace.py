"""A process's own network namespace (issue 47): where a server whose entry lists `hosts`
runs, with loopback alone, so that its one way out is the agent's proxy.

An unprivileged process may make a network namespace inside a user namespace it makes at
the same time (unshare(2), user_namespaces(7)); it maps its own uid and gid to themselves,
so it sees the same ids, and brings loopback up (netdevice(7), SIOCSIFFLAGS). It must be
single-threaded: a forked server before its code runs, or the spawn launcher. Standard
library only (the launcher must start fast).
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import socket
import struct
import subprocess
import sys

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000  # include/uapi/linux/sched.h
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1  # include/uapi/linux/sockios.h, if.h
_IFREQ = "16sH22x"  # struct ifreq: the name, then ifr_flags in a 24-byte union
PROBE = (
    "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); "
    f"sys.exit(0 if libc.unshare({CLONE_NEWUSER | CLONE_NEWNET}) == 0 else 1)"
)


def isolate(channel: int | None = None, port: int = 0) -> None:
    """This process in network and user namespaces of its own, loopback up; with `channel`
    (a unix socket's descriptor, closed here), a TCP listener on 127.0.0.1:`port` inside
    them is sent over it, to the proxy that will accept on it. OSError if the kernel says
    no: the caller must then not run what it was to run."""
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"unshare(CLONE_NEWUSER | CLONE_NEWNET): {os.strerror(code)}")
    _write("/proc/self/setgroups", "deny")  # before gid_map, as user_namespaces(7) requires
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _loopback_up()
    if channel is not None:
        with (
            socket.socket(fileno=channel) as sent,
            socket.create_server(("127.0.0.1", port)) as listener,
        ):
            socket.send_fds(sent, [b"listening"], [listener.fileno()])


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as any_socket:
        request = struct.pack(_IFREQ, b"lo", 0)
        _, flags = struct.unpack(_IFREQ, fcntl.ioctl(any_socket, SIOCGIFFLAGS, request))
        fcntl.ioctl(any_socket, SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | IFF_UP))


@functools.cache
def namespaces_available() -> bool:
    """Whether this kernel lets this user make a network namespace (not Linux; user
    namespaces off, `kernel.unprivileged_userns_clone=0` or an AppArmor restriction: no).
    Tried in a child interpreter, once a process: a fork of this one, with its threads,
    could deadlock."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        command = [sys.executable, "-I", "-S", "-c", PROBE]
        probe = subprocess.run(command, stdin=subprocess.DEVNULL, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0
