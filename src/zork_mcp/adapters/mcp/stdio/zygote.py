"""The fork server's own process: imports the MCP SDK once, then forks server processes.

Run as `python -m zork_mcp.adapters.mcp.stdio.zygote <fd>`, where fd is its end of a
SOCK_SEQPACKET socketpair inherited from the client (no path anyone else can reach). Each
request is one JSON packet with three fds (stdin, stdout, stderr), then those of its
confinement (`sandbox.Handover`: its Landlock ruleset, built by the client, and the socket
its proxy's listener goes back over); the answer is the child's pid with a pidfd. It
stays single-threaded with no event loop, and exits when the control socket reaches EOF
(the client closed it, or died), ending any child still alive.

Each child is forked before it is asked for (a Spare), so a request costs a hand-over,
not a fork. Given its request, it becomes a new session and process group, drops
everything the fork server held, then runs the server's module or script from its top
level with the requested argv, environment and cwd, confined first when the request says
so (it enforces the ruleset it was sent). This module imports only the standard library
(and `readiness`, which is poll, and `landlock`, ctypes) before forking. Its descriptors
may be numbered above 1024 (inherited from a client holding many), which `select` refuses.

What is preloaded is then frozen (gc.freeze), so a child's collections never walk, and
never copy, the fork server's pages. A child ends as the interpreter would end it (exit
code, traceback, non-daemon threads joined, atexit handlers, open files flushed) but skips
tearing down the modules it inherited: ~150 ms of CPU per child that nobody could see.
"""

from __future__ import annotations

import _io
import atexit
import contextlib
import gc
import importlib
import json
import os
import runpy
import select
import signal
import socket
import sys
import threading
import time
import traceback
from typing import Any, NoReturn

from zork_mcp.adapters.posix import namespaces
from zork_mcp.adapters.posix.confined import confine_self
from zork_mcp.adapters.posix.landlock import abi_version
from zork_mcp.adapters.posix.readiness import wait_readable

PRELOAD = (
    "mcp.server.mcpserver",
    "mcp.server.stdio",
    "mcp.types",
    "anyio._backends._asyncio",  # what MCPServer.run() imports next
    "rich.logging",
    "rich.console",
    "argparse",  # most servers parse their argv
    "zork_mcp.servers.thinking",  # the bundled reasoning server's tool, schemas built once
    "zork_mcp.servers.episode_memory",  # the memory server's tools and the journal's reader
    "zork_mcp.servers.transport",  # and how our servers are served
)
WARM_UP = "zork_mcp.adapters.mcp.stdio.warm_up"
MAX_REQUEST = 1 << 20
MAX_FDS = 5  # stdin, stdout, stderr, a ruleset, a proxy's channel
REAP_INTERVAL = 1.0
EXIT_GRACE_SECONDS = 2.0


class Spare:
    """A child forked ahead of time, waiting for the request that makes it a server: a
    request is answered at once (its pid is known before it is handed the request), and
    the next fork happens after the answer.

    A plain one waits in the fork server's process group, so it ends with it; a `sealed`
    one (for a request that seals its server's tree) has made its namespaces, and its
    server's process in them, ahead too (`_enter_namespaces`), in a group of its own. EOF on
    its socket (the fork server ended, or died) ends either. Each spare is of the kind the
    last request asked for; a request of the other kind has one made for it.
    """

    def __init__(self, control: socket.socket, children: set[int], *, sealed: bool) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            control.close()
            ours.close()
            if sealed:
                _enter_namespaces()
            _wait_then_run(theirs, sealed=sealed)
        theirs.close()
        children.add(pid)
        self.pid, self._pidfd, self._socket = pid, os.pidfd_open(pid), ours
        self.sealed = sealed

    @property
    def alive(self) -> bool:
        return not wait_readable(self._pidfd, 0)

    def answer(self, control: socket.socket) -> None:
        """Its pid and a pidfd, to the client."""
        socket.send_fds(control, [json.dumps({"pid": self.pid}).encode()], [self._pidfd])

    def hand_over(self, packet: bytes, fds: list[int]) -> None:
        """If it has died since `alive`, the client sees its pipes close: a failed start."""
        with contextlib.suppress(OSError):
            socket.send_fds(self._socket, [packet], fds)
        self.close()

    def close(self) -> None:
        self._socket.close()
        os.close(self._pidfd)


def serve(control: socket.socket) -> None:
    """Hand a pre-forked child each request until the control socket reaches EOF."""
    children: set[int] = set()
    exited = _child_exits()
    spare = Spare(control, children, sealed=False)
    control.send(b'{"ready": true}')
    while True:
        readable = _wait(control, exited)
        _reap(children)
        if not readable:
            continue
        try:
            packet, fds, _, _ = socket.recv_fds(control, MAX_REQUEST, MAX_FDS)
        except ConnectionError:  # the client closed with our "ready" unread
            packet, fds = b"", []
        if not packet:
            spare.close()
            _end_children(children)
            return
        sealed = _sealed(packet)
        if not spare.alive or spare.sealed != sealed:  # killed while it waited, or unlike
            spare.close()
            spare = Spare(control, children, sealed=sealed)
        try:
            spare.answer(control)  # first: the client goes on while the child starts
            spare.hand_over(packet, fds)
        finally:
            for fd in fds:
                os.close(fd)
        spare = Spare(control, children, sealed=sealed)  # the next is likely the same


def _child_exits() -> int:
    """A descriptor that becomes readable when a child exits, so it is reaped at once: a
    server's group counts as empty for the client's reaper only once its leader is reaped."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    return read


def _wait(control: socket.socket, exited: int) -> bool:
    """Whether a request (or EOF) came in within REAP_INTERVAL; a child's exit wakes it too."""
    poller = select.poll()
    poller.register(control, select.POLLIN)
    poller.register(exited, select.POLLIN)
    events = dict(poller.poll(REAP_INTERVAL * 1000))
    if exited in events:
        with contextlib.suppress(BlockingIOError):
            os.read(exited, 4096)
    return control.fileno() in events


def _sealed(packet: bytes) -> bool:
    """Whether a request is for a sealed server (`confined.confine_self`'s `writable`)."""
    try:
        return json.loads(packet).get("writable") is not None
    except (ValueError, AttributeError):
        return False


def _enter_namespaces() -> None:
    """A sealed spare, ahead of its request: a new session and process group, then user,
    mount and PID namespaces of its own, whose first process it forks (the one that will be
    the server, in this group); this process stays outside and relays it, the process the
    client is told of (`namespaces.become_init`). Its tree is sealed once its request says
    what it may write. A kernel that says no ends the spare: its start fails, never
    unconfined."""
    try:
        os.setsid()
        namespaces.unshare(sealed=True, network=False)
        namespaces.become_init()
    except BaseException:
        os._exit(1)


def _wait_then_run(handover: socket.socket, *, sealed: bool) -> NoReturn:
    """A spare's life: never back into the fork server's loop, whatever happens."""
    try:
        packet, fds, _, _ = socket.recv_fds(handover, MAX_REQUEST, MAX_FDS)
        if not packet:  # EOF: the fork server ended before it needed us
            os._exit(0)
        request = json.loads(packet)
        request["entered"] = sealed
        _become_server(handover, fds, own_session=not sealed)
    except BaseException:
        os._exit(1)
    run_then_exit(request)


def _become_server(handover: socket.socket, fds: list[int], *, own_session: bool) -> None:
    """Its stdin, stdout and stderr, then its confinement's from 3 on, and nothing else
    open. `fds` ascend from 3 (recv_fds takes the lowest free numbers), so no dup2
    overwrites one not yet moved. `own_session`: a new session and group (a sealed one is
    in its relay's already)."""
    handover.close()
    if own_session:
        os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(len(fds), os.sysconf("SC_OPEN_MAX"))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)


def run_server(request: dict[str, Any]) -> None:
    """What `python -m module args` or `python script args` would do, in this process,
    confined first when the request says so (a LandlockError ends it, never unconfined)."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    confine_self(
        request.get("ruleset"),
        request.get("network", "open"),
        request.get("channel"),
        request.get("proxy_port", 0),
        request.get("writable"),
        entered=request.get("entered", False),
    )
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


def run_then_exit(request: dict[str, Any]) -> NoReturn:
    """run_server, then end the process as the interpreter would, short of module teardown."""
    code = 1
    try:
        code, interrupted = _run(request)
        _finish()
        if interrupted:  # as the interpreter does: die of the SIGINT it did not handle
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        os._exit(code)


def _run(request: dict[str, Any]) -> tuple[int, bool]:
    """The exit code, and whether a KeyboardInterrupt went unhandled."""
    try:
        run_server(request)
    except SystemExit as e:
        return _exit_code(e.code), False
    except KeyboardInterrupt:
        traceback.print_exc()
        return 130, True
    except BaseException:
        sys.excepthook(*sys.exc_info())
        return 1, False
    return 0, False


def _exit_code(code: object) -> int:
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


def _finish() -> None:
    """What interpreter shutdown does that anyone can see: wait for non-daemon threads,
    run atexit handlers, flush every file still open (the child's own: the fork server's
    objects are frozen, out of gc's sight, and sys.stdout/stderr are flushed by name)."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in [sys.stdout, sys.stderr, *gc.get_objects()]:
        if isinstance(stream, _io._IOBase):  # not the io.IOBase ABC: ~4 µs an object
            with contextlib.suppress(Exception):
                stream.flush()


def _preload() -> None:
    for module in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    with contextlib.suppress(Exception):  # only a speed-up: a failure costs the children
        importlib.import_module(WARM_UP).warm_up()
    with contextlib.suppress(Exception):  # libc loaded once, for every child's restriction
        abi_version()
    gc.collect()
    gc.freeze()


def main() -> NoReturn:
    """Serve, then exit without tearing down what it preloaded (nothing to flush)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the client's; EOF ends us
    control = socket.socket(fileno=int(sys.argv[1]))
    _preload()
    serve(control)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
