"""The parent's handle on one game process (`emulator_main`): start, ask, end.

Frotz is C and not memory-safe, so it runs in a child whose death is an exception here,
never a signal in the caller. The child's working directory is a private folder that it
makes and names in its hello; whichever of the two ends last removes it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.context
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from importlib import import_module
from pathlib import Path
from typing import Any, Protocol

from zork_mcp.adapters.game.jericho import wire
from zork_mcp.adapters.posix.main_left_out import main_left_out
from zork_mcp.adapters.posix.readiness import wait_readable

MODULE = "zork_mcp.adapters.game.jericho.emulator_main"
# Preloaded by the game forkserver, in order: its own session first, then MODULE and Frotz
PRELOAD = [
    "zork_mcp.adapters.game.jericho.forkserver_session",
    "zork_mcp.adapters.game.jericho.game_preload",
]
FOLDER_PREFIX = wire.FOLDER_PREFIX
START_TIMEOUT_SECONDS = 60.0
STEP_TIMEOUT_SECONDS = 20.0
EXIT_GRACE_SECONDS = 2.0


class EmulatorDied(Exception):
    """The game process is gone or stopped answering; its game is lost with it."""


class EmulatorProcess:
    def __init__(
        self,
        story: Path,
        seed: int | None,
        *,
        forked: bool = False,
        start_timeout: float = START_TIMEOUT_SECONDS,
        step_timeout: float = STEP_TIMEOUT_SECONDS,
    ) -> None:
        """`forked`: from a preloaded parent (many games in one process: a sweep worker),
        else a new interpreter (one game: a run)."""
        self._start_timeout, self._step_timeout = start_timeout, step_timeout
        self._folder: Path | None = None  # its hello is read with the first answer:
        self._lock = threading.Lock()  # starts overlap
        start: type[_SpawnedGame | _ForkedGame] = _ForkedGame if forked else _SpawnedGame
        self._child: _Child = start(Path(story).resolve(), seed)
        self._replies = self._child.replies

    @property
    def folder(self) -> Path:
        """The child's private folder (its working directory), once it has started."""
        with self._lock:
            self._await_start()
            assert self._folder is not None
            return self._folder

    @property
    def pid(self) -> int:
        return self._child.pid

    def ask(self, request: dict[str, Any], state: wire.FrotzState | None = None) -> wire.Frame:
        """The child's answer (played from `state` if given); EmulatorDied if it died, hung
        or answered garbage."""
        with self._lock:
            if self._replies < 0:
                raise EmulatorDied("the game process was already ended")
            try:
                self._await_start()
                wire.send(self._child.requests, request, state)
                reply = self._receive(self._step_timeout)
            except (OSError, wire.WireError, EmulatorDied) as e:
                raise EmulatorDied(self._end(f"{e}")) from e
            except BaseException:
                self._end("interrupted")  # a half-read reply would desync the next one
                raise
        if "error" in reply.message:
            raise EmulatorDied(f"the game process refused the request: {reply.message['error']}")
        return reply

    def close(self) -> None:
        with self._lock:
            if self._replies >= 0:
                self._end("closed")

    def _await_start(self) -> None:
        if self._folder is None:
            try:
                hello = self._receive(self._start_timeout)
            except (OSError, wire.WireError, EmulatorDied) as e:
                raise EmulatorDied(f"it did not start: {e}") from e
            self._folder = Path(hello.message["folder"])

    def _receive(self, timeout: float) -> wire.Frame:
        deadline = time.monotonic() + timeout
        while not wait_readable(self._replies, deadline - time.monotonic()):
            if time.monotonic() >= deadline:
                raise EmulatorDied(f"the game process did not answer within {timeout:g}s")
        return wire.receive(self._replies)

    def _end(self, why: str) -> str:
        """Stop the child (EOF first, then SIGKILL), remove its folder; say how it ended."""
        code = self._child.end(EXIT_GRACE_SECONDS if why == "closed" else 0.2)
        self._replies = -1
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
        return f"{why} ({_exit_text(code)})"


class _Child(Protocol):
    pid: int
    requests: int  # the fd requests are written to
    replies: int  # the fd answers are read from

    def end(self, grace: float) -> int:
        """EOF on its requests, SIGKILL after `grace` seconds; its exit code (-signal)."""
        ...


class _SpawnedGame:
    def __init__(self, story: Path, seed: int | None) -> None:
        replies, child_end = os.pipe()
        try:
            # Its own session: a kill aimed at our process group (an MCP server's, by its
            # client) must not end it before it removes its folder; it ends with its pipe.
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    MODULE,
                    str(story),
                    "none" if seed is None else str(seed),
                    str(child_end),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                pass_fds=(child_end,),
                start_new_session=True,
            )
        except BaseException:
            os.close(replies)
            raise
        finally:
            os.close(child_end)
        self.pid, self.replies = self._process.pid, replies
        self.requests = self._process.stdin.fileno()  # type: ignore[union-attr]

    def end(self, grace: float) -> int:
        with contextlib.suppress(OSError):
            self._process.stdin.close()  # type: ignore[union-attr]
        try:
            self._process.wait(grace)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self.replies)
        return self._process.returncode


class _ForkedGame:
    """A child of the stdlib's forkserver, which imported Jericho once for every game of
    this process: a start is a fork, and the children share the interpreter's pages."""

    _context = multiprocessing.get_context("forkserver")
    _lock = threading.Lock()  # Process.start and the forkserver's start, from many threads
    _preloaded = False

    def __init__(self, story: Path, seed: int | None) -> None:
        requests_r, requests_w = self._context.Pipe(duplex=False)
        replies_r, replies_w = self._context.Pipe(duplex=False)
        with requests_r, replies_w:  # the child's ends: it has its copies once started
            process = _GameProcess(
                target=_run_forked,
                args=(str(story), seed, requests_r, replies_w),
                name="zork-mcp game",
                daemon=True,  # a game never closed is ended at exit, not waited for forever
            )
            try:
                with self._lock:
                    self._preload()
                    process.start()
            except BaseException:
                requests_w.close()
                replies_r.close()
                raise
        self._process = process
        self.pid = process.pid or 0
        with requests_w, replies_r:
            self.requests, self.replies = os.dup(requests_w.fileno()), os.dup(replies_r.fileno())

    @classmethod
    def _preload(cls) -> None:
        if not cls._preloaded:
            cls._context.set_forkserver_preload(PRELOAD)
            cls._preloaded = True

    def end(self, grace: float) -> int:
        with contextlib.suppress(OSError):
            os.close(self.requests)
        self._process.join(grace)
        if self._process.exitcode is None:
            self._process.kill()
            self._process.join()
        os.close(self.replies)
        code = self._process.exitcode
        self._process.close()
        return code if code is not None else -signal.SIGKILL


class _GameProcess(multiprocessing.context.ForkServerProcess):
    """The forkserver's start, less its import of this process's `__main__` in the child
    (multiprocessing re-runs a main script there): the game needs none of it, and a
    console script's main costs each child ~1 s."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        with main_left_out():
            return multiprocessing.context.ForkServerProcess._Popen(process_obj)


def _run_forked(*args: Any) -> None:
    """In the forked child; the game module (Jericho and all) is the forkserver's, preloaded."""
    import_module(MODULE).run_forked(*args)


def _exit_text(code: int) -> str:
    if code >= 0:
        return f"the game process exited with code {code}"
    try:
        return f"the game process was killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"the game process was killed by signal {-code}"
