"""A process's own network namespace (issue 47): where a server whose entry lists `hosts`
runs, with loopback alone, so that its one way out is the agent's proxy.

The namespace is made with the process's others (`namespaces.unshare`: an unprivileged
process may make one inside a user namespace it makes at the same time); here loopback is
brought up (netdevice(7), SIOCSIFFLAGS) and the proxy's listener handed over. Standard
library only (the launcher must start fast).
"""

from __future__ import annotations

import fcntl
import socket
import struct

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1  # include/uapi/linux/sockios.h, if.h
_IFREQ = "16sH22x"  # struct ifreq: the name, then ifr_flags in a 24-byte union


def connect_inside(channel: int | None = None, port: int = 0) -> None:
    """In a network namespace of its own (just made): loopback up; with `channel` (a unix
    socket's descriptor, closed here), a TCP listener on 127.0.0.1:`port` inside it is sent
    over it, to the proxy that will accept on it."""
    _loopback_up()
    if channel is not None:
        with (
            socket.socket(fileno=channel) as sent,
            socket.create_server(("127.0.0.1", port)) as listener,
        ):
            socket.send_fds(sent, [b"listening"], [listener.fileno()])


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as any_socket:
        request = struct.pack(_IFREQ, b"lo", 0)
        _, flags = struct.unpack(_IFREQ, fcntl.ioctl(any_socket, SIOCGIFFLAGS, request))
        fcntl.ioctl(any_socket, SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | IFF_UP))
