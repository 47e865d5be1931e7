"""The game process: Jericho's C emulator behind a pipe, in its own private folder.

`python -m zork_mcp.adapters.game.jericho.emulator_main STORY SEED REPLY_FD`, started by
`EmulatorProcess` in a session of its own. Requests arrive on stdin, replies leave on
REPLY_FD (Frotz may print to stdout). Or forked from a preloaded parent (`run_forked`, the
stdlib's forkserver), given both pipes. Once in its own session, so no kill aimed at its
parent's process group can cut its clean-up short, it makes its private folder, works
there, and names it in its hello. It ends, removing that
folder, when its parent closes stdin or dies, or on SIGTERM; Ctrl-C is the parent's. It
ends without tearing down Jericho: freeing a heap that a bad line may have corrupted is
where Frotz aborts, and nothing of it outlives the process.

It imports what its loop needs and no more (issue 56): Jericho, the wire, Landlock and the
game's rules, never the parent's side of the package (`game_env`), pydantic or the facts.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import sys
import tempfile
import traceback
import warnings
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
from jericho import FrotzEnv

from zork_mcp.adapters.game.jericho.wire import (
    FOLDER_PREFIX,
    Frame,
    FrotzState,
    WireError,
    receive,
    send,
)
from zork_mcp.adapters.posix.landlock import restrict_self
from zork_mcp.domain.servers.confinement_rules import emulator_confinement

Reply = tuple[dict[str, Any], FrotzState | None]

_PEEK_COMMAND = "look"
_PR_SET_PDEATHSIG = 1


class Emulator:
    """One FrotzEnv and the requests it answers."""

    def __init__(self, story: str, seed: int | None) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # UnsupportedGameWarning: _peek reads the status
            self.env = FrotzEnv(story, seed=seed)
        self.supported = bool(self.env.is_fully_supported)

    def answer(self, request: dict[str, Any], state: FrotzState | None) -> Reply:
        """The reply to `request`, played from `state` when one comes with it."""
        if state is not None:
            self._load(state)
        op = request.get("op")
        if op == "reset":
            text, info = self.env.reset()
            return self._observed(text, False, info)
        if op == "step":
            text, _, done, info = self.env.step(str(request["command"]))
            return self._observed(text, bool(done), info)
        if op == "peek":
            return self._peeked(str(request["command"])), None
        if op == "load":
            return {"loaded": state is not None}, None
        raise ValueError(f"unknown request {op!r}")

    def _observed(self, text: str, done: bool, info: dict[str, Any]) -> Reply:
        if self.env._emulator_halted():
            return {"halted": True, "text": text}, None
        state = self._state()
        reply = {
            "text": text,
            "done": done,
            "score": int(info.get("score", 0)),
            "moves": int(info.get("moves", 0)),
            "location": self._location() if self.supported else "",
            "status": "" if self.supported else self._peek(state),
        }
        return reply, state

    def _peeked(self, command: str) -> dict[str, Any]:
        state = self._state()
        text = self.env.step(command)[0]
        if self.env._emulator_halted():
            return {"halted": True, "text": text}
        self._load(state)
        return {"text": text}

    def _peek(self, state: FrotzState) -> str:
        """The next status line: the room, score and moves after the command."""
        text = self.env.step(_PEEK_COMMAND)[0]
        self._load(state)
        return text

    def _location(self) -> str:
        return getattr(self.env.get_player_location(), "name", "") or ""

    def _state(self) -> FrotzState:
        return FrotzState.of_jericho(self.env.get_state())

    def _load(self, state: FrotzState) -> None:
        self.env.set_state(
            (
                np.frombuffer(state.ram, dtype=np.uint8).copy(),
                np.frombuffer(state.stack, dtype=np.uint8).copy(),
                state.pc,
                state.sp,
                state.fp,
                state.frame_count,
                state.opcode,
                state.rng,
                state.narrative,
            )
        )


class _Termination:
    """SIGTERM (the parent's death signal) ends the wait for a request, and nothing else: a
    step in progress finishes, and the clean-up that follows is never cut short."""

    requested = False
    waiting = False

    @classmethod
    def on_signal(cls, *_: object) -> None:
        cls.requested = True
        if cls.waiting:
            raise SystemExit(0)


def _next_request(requests: int) -> Frame | None:
    if _Termination.requested:
        return None
    _Termination.waiting = True
    try:
        return receive(requests)
    except WireError:
        return None  # the parent closed stdin or died
    finally:
        _Termination.waiting = False


def serve(emulator: Emulator, folder: Path, requests: int, replies: int) -> None:
    send(replies, {"supported": emulator.supported, "folder": str(folder)})
    while True:
        request = _next_request(requests)
        if request is None:
            return
        try:
            reply, state = emulator.answer(request.message, request.state)
        except Exception as e:  # a bad request is the parent's bug: said, not fatal
            reply, state = {"error": f"{type(e).__name__}: {e}"}, None
        try:
            send(replies, reply, state)
        except BrokenPipeError:
            return  # the parent died while the step was played


def _end_with_parent() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _Termination.on_signal)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def _confine(story: str, folder: Path) -> None:
    """Landlock (issue 47): the story, Python and Jericho read-only, its folder writable (and
    removable when it ends), no TCP port, no signal out; what the kernel lacks is left
    unconfined."""
    paths = (sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path)
    home = os.path.expanduser("~")
    rules = emulator_confinement(paths, str(Path(story).resolve()), str(folder), os.getcwd(), home)
    restrict_self(rules.as_dict())
    tempfile.tempdir = os.environ["TMPDIR"] = str(folder)  # Jericho's own temporary files


def main(argv: list[str]) -> None:
    story, seed, reply_fd = argv[0], argv[1], int(argv[2])
    if os.getsid(0) != os.getpid():
        raise SystemExit("the game process must lead a session of its own")
    _run(story, int(seed) if seed != "none" else None, 0, reply_fd)


def run_forked(story: str, seed: int | None, requests: Connection, replies: Connection) -> None:
    """The game process as a forked child: the same life as `main`'s, with Frotz's stdout
    sent nowhere."""
    os.setsid()
    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, 1)
    os.close(nowhere)
    _run(story, seed, requests.fileno(), replies.fileno())


def _run(story: str, seed: int | None, request_fd: int, reply_fd: int) -> None:
    parent = os.getppid()
    _end_with_parent()
    code, folder = 1, None
    try:
        if os.getppid() == parent:  # else the parent died before the death signal was set
            folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
            os.chdir(folder)
            _confine(story, folder)
            emulator = Emulator(story, seed)
            serve(emulator, folder, request_fd, reply_fd)  # lives to os._exit: no teardown
        code = 0
    except SystemExit:  # SIGTERM
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
