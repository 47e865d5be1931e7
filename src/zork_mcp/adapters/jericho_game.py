"""The GameEnv port over Jericho's Z-machine (FrotzEnv).

Jericho only knows some story files by hash. For the others (such as the MIT-licensed
Release 119 `zork1.z3`) score and moves stay 0 and the location is unknown, but every
observation starts with the game's own status line; after each command the adapter peeks
one step ahead (save, step, read the status line, restore) to learn the values after it.

Commands are made safe first (`domain.game_command`); the emulator runs in a private
working directory, and once it has halted it is never stepped again (that crashes it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from jericho import FrotzEnv

from zork_mcp.domain.errors import ConfigurationError, GameHaltedError
from zork_mcp.domain.game import GameObservation
from zork_mcp.domain.game_command import notice_text, safe_command
from zork_mcp.domain.status_line import (
    StatusLine,
    is_game_over,
    parse_status_line,
    strip_status_line,
)

GAME_ENV_VAR = "ZORK_MCP_GAME"
DEFAULT_GAME = Path("..") / "shared" / "games" / "zork1.z3"
_PEEK_COMMAND = "look"


class JerichoGameEnv:
    def __init__(
        self, game_file: Path, seed: int | None = 12, *, allow_quit_restart: bool = False
    ) -> None:
        self._workdir = Path(tempfile.mkdtemp(prefix="zork_mcp_game_"))
        self._allow_quit_restart = allow_quit_restart
        with warnings.catch_warnings(), self._private_cwd():
            warnings.simplefilter("ignore")  # UnsupportedGameWarning: handled below
            self._env = FrotzEnv(str(Path(game_file).resolve()), seed=seed)
        self._supported = bool(self._env.is_fully_supported)
        self._last = StatusLine("", 0, 0)
        self._halted = False

    def reset(self) -> GameObservation:
        with self._private_cwd():
            text, info = self._env.reset()
        self._last, self._halted = StatusLine("", 0, 0), False
        return self._observe(text.strip(), info, done=False)

    def step(self, action: str) -> GameObservation:
        verdict = safe_command(action, allow_quit_restart=self._allow_quit_restart)
        if verdict.command is None:
            return self._unchanged(verdict.notice)
        text, _, done, info = self._frotz_step(verdict.command)
        observation = self._observe(strip_status_line(text), info, done)
        return replace(observation, text=notice_text(verdict, observation.text))

    def save_state(self) -> object:
        self._check_running()
        with self._private_cwd():
            return (self._env.get_state(), self._last)

    def restore_state(self, state: object) -> GameObservation:
        self._check_running()
        frotz_state, last = state  # type: ignore[misc]
        with self._private_cwd():
            self._env.set_state(frotz_state)
        self._last = last
        return GameObservation("", last.room or None, last.score, last.moves)

    def close(self) -> None:
        self._env.close()
        shutil.rmtree(self._workdir, ignore_errors=True)

    def _frotz_step(self, command: str) -> tuple[str, float, bool, Mapping[str, int]]:
        self._check_running()
        with self._private_cwd():
            result = self._env.step(command)
        if self._env._emulator_halted():
            self._halted = True
            raise GameHaltedError(
                f"The Z-machine halted on the command {command!r}; the game cannot go on. "
                "Start a new episode."
            )
        return result

    def _check_running(self) -> None:
        if self._halted:
            raise GameHaltedError("The Z-machine has halted; no further command is possible.")

    def _unchanged(self, notice: str) -> GameObservation:
        last = self._last
        return GameObservation(f"[{notice}]", last.room or None, last.score, last.moves)

    @contextmanager
    def _private_cwd(self) -> Iterator[None]:
        """Whatever the interpreter writes lands in this game's own folder."""
        previous = os.getcwd()
        os.chdir(self._workdir)
        try:
            yield
        finally:
            os.chdir(previous)

    def _observe(self, text: str, info: Mapping[str, int], done: bool) -> GameObservation:
        status = self._supported_status(info) if self._supported else self._peek_status()
        self._last = status or self._last
        over = bool(done) or is_game_over(text)
        room = self._last.room or None
        return GameObservation(text, room, self._last.score, self._last.moves, over)

    def _supported_status(self, info: Mapping[str, int]) -> StatusLine:
        location = self._env.get_player_location()
        name = getattr(location, "name", "") or ""
        return StatusLine(name, int(info.get("score", 0)), int(info.get("moves", 0)))

    def _peek_status(self) -> StatusLine | None:
        with self._private_cwd():
            state = self._env.get_state()
            try:
                text, *_ = self._env.step(_PEEK_COMMAND)
            finally:
                self._env.set_state(state)
        return parse_status_line(text)


def find_game_file(
    explicit: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    configured: str | os.PathLike[str] | None = None,
    base: Path | None = None,
) -> Path:
    """--game, then $ZORK_MCP_GAME, then the config, then ../shared/games/zork1.z3."""
    env = os.environ if environ is None else environ
    root = base or Path.cwd()
    candidates = [
        ("--game", explicit),
        (GAME_ENV_VAR, env.get(GAME_ENV_VAR)),
        ("the config", configured),
        ("the default", root / DEFAULT_GAME),
    ]
    for source, value in candidates:
        if not value:
            continue
        path = Path(value).expanduser()
        path = path if path.is_absolute() else root / path
        if path.is_file():
            return path
        if source != "the default":
            raise ConfigurationError(f"The game file from {source} does not exist: {path}")
    raise ConfigurationError(
        "No Zork I story file was found (looked for --game, $ZORK_MCP_GAME and "
        f"{(root / DEFAULT_GAME).resolve()}).\n"
        "Zork I is free: Microsoft released its source under the MIT licence; the compiled "
        "story file is COMPILED/zork1.z3 in the historicalsource/zork1 repository on GitHub.\n"
        f"Download it, then pass --game /path/to/zork1.z3 or set {GAME_ENV_VAR}."
    )
