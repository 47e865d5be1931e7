"""The parent's handle on one game process (`emulator_main`): start, ask, end.

Frotz is C and not memory-safe, so it runs in a child whose death is an exception here,
never a signal in the caller. The child's working directory is a private folder, created
here and removed by whichever of the two ends last.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from zork_mcp.adapters.jericho_game import wire

MODULE = "zork_mcp.adapters.jericho_game.emulator_main"
FOLDER_PREFIX = "zork_mcp_game_"
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
        start_timeout: float = START_TIMEOUT_SECONDS,
        step_timeout: float = STEP_TIMEOUT_SECONDS,
    ) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
        self._start_timeout, self._step_timeout = start_timeout, step_timeout
        self._started = False  # its hello is read with the first answer: starts overlap
        self._lock = threading.Lock()
        self._process, self._replies = self._start(Path(story).resolve(), seed)

    @property
    def pid(self) -> int:
        return self._process.pid

    def ask(self, request: dict[str, Any], state: wire.FrotzState | None = None) -> wire.Frame:
        """The child's answer (played from `state` if given); EmulatorDied if it died, hung
        or answered garbage."""
        with self._lock:
            if self._replies < 0:
                raise EmulatorDied("the game process was already ended")
            try:
                self._await_start()
                wire.send(self._process.stdin.fileno(), request, state)  # type: ignore[union-attr]
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
        if not self._started:
            try:
                self._receive(self._start_timeout)
            except (OSError, wire.WireError, EmulatorDied) as e:
                raise EmulatorDied(f"it did not start: {e}") from e
            self._started = True

    def _start(self, story: Path, seed: int | None) -> tuple[subprocess.Popen[bytes], int]:
        replies, child_end = os.pipe()
        try:
            # Its own session: a kill aimed at our process group (an MCP server's, by its
            # client) must not end it before it removes its folder; it ends with its pipe.
            process = subprocess.Popen(
                [sys.executable, "-m", MODULE, str(self.folder), str(story),
                 "none" if seed is None else str(seed), str(child_end)],
                cwd=self.folder,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                pass_fds=(child_end,),
                start_new_session=True,
            )  # fmt: skip
        except BaseException:
            os.close(replies)
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        finally:
            os.close(child_end)
        return process, replies

    def _receive(self, timeout: float) -> wire.Frame:
        deadline = time.monotonic() + timeout
        while not select.select([self._replies], [], [], max(0.0, deadline - time.monotonic()))[0]:
            if time.monotonic() >= deadline:
                raise EmulatorDied(f"the game process did not answer within {timeout:g}s")
        return wire.receive(self._replies)

    def _end(self, why: str) -> str:
        """Stop the child (EOF first, then SIGKILL), remove its folder; say how it ended."""
        process = self._process
        with contextlib.suppress(OSError):
            process.stdin.close()  # type: ignore[union-attr]
        try:
            process.wait(EXIT_GRACE_SECONDS if why == "closed" else 0.2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(self._replies)
        self._replies = -1
        shutil.rmtree(self.folder, ignore_errors=True)
        return f"{why} ({_exit_text(process.returncode)})"


def _exit_text(code: int) -> str:
    if code >= 0:
        return f"the game process exited with code {code}"
    try:
        return f"the game process was killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"the game process was killed by signal {-code}"
