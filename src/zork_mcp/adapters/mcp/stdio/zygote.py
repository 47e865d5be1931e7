"""The fork server's own process: imports the MCP SDK once, then forks server processes.

Run as `python -m zork_mcp.adapters.mcp.stdio.zygote <fd>`, where fd is its end of a
SOCK_SEQPACKET socketpair inherited from the client (no path anyone else can reach). Each
request is one JSON packet with three fds (stdin, stdout, stderr); the answer is the
child's pid with a pidfd. It stays single-threaded with no event loop, and exits when the
control socket reaches EOF (the client closed it, or died), ending any child still alive.

A child is a new session and process group; it drops everything the fork server held,
then runs the server's module or script from its top level with the requested argv,
environment and cwd. This module imports only the standard library before forking.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import select
import signal
import socket
import sys
import time
from typing import Any

PRELOAD = (
    "mcp.server.mcpserver",
    "mcp.server.stdio",
    "mcp.types",
    "anyio._backends._asyncio",  # what MCPServer.run() imports next
    "rich.logging",
    "rich.console",
)
MAX_REQUEST = 1 << 20
REAP_INTERVAL = 1.0
EXIT_GRACE_SECONDS = 2.0


def serve(control: socket.socket) -> dict[str, Any] | None:
    """Fork on request until EOF; in a forked child, return its request instead."""
    children: set[int] = set()
    control.send(b'{"ready": true}')
    while True:
        readable, _, _ = select.select([control], [], [], REAP_INTERVAL)
        _reap(children)
        if not readable:
            continue
        try:
            packet, fds, _, _ = socket.recv_fds(control, MAX_REQUEST, 3)
        except ConnectionError:  # the client closed with our "ready" unread
            packet, fds = b"", []
        if not packet:
            _end_children(children)
            return None
        request = json.loads(packet)
        pid = os.fork()
        if pid == 0:
            _become_server(control, fds)
            return request
        for fd in fds:
            os.close(fd)
        children.add(pid)
        pidfd = os.pidfd_open(pid)
        socket.send_fds(control, [json.dumps({"pid": pid}).encode()], [pidfd])
        os.close(pidfd)


def _become_server(control: socket.socket, fds: list[int]) -> None:
    control.close()
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)


def run_server(request: dict[str, Any]) -> None:
    """What `python -m module args` or `python script args` would do, in this process."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    kind, target, args = request["kind"], request["target"], request["args"]
    sys.argv = [target, *args]
    if kind == "module":
        sys.path[0] = os.getcwd()
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.path[0] = os.path.dirname(os.path.realpath(target))
        runpy.run_path(target, run_name="__main__")


def _reap(children: set[int]) -> None:
    for pid in list(children):
        with contextlib.suppress(ChildProcessError):
            done, _ = os.waitpid(pid, os.WNOHANG)
            if not done:
                continue
        children.discard(pid)


def _end_children(children: set[int]) -> None:
    """The client is gone: stdin EOF has reached the children; then SIGTERM, then SIGKILL."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        for pid in children if sig else ():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, sig)
        deadline = time.monotonic() + EXIT_GRACE_SECONDS
        while children and time.monotonic() < deadline:
            _reap(children)
            time.sleep(0.02)
        if not children:
            return


def _preload() -> None:
    for module in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)


def main() -> dict[str, Any] | None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the client's; EOF ends us
    control = socket.socket(fileno=int(sys.argv[1]))
    _preload()
    return serve(control)


if __name__ == "__main__":
    request = main()
    if request is not None:
        run_server(request)
