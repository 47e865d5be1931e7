"""The GameEnv port over Jericho's Z-machine, which runs in a game process of its own.

Commands are judged first, on the words the game will read (`domain.game_command`, with
the story file's own dictionary). The parent keeps the game's state after every step, so
a game process that dies (a signal, a hang) is replaced by a new one at the same moment
of the game: the command is not played, an event says so, and the episode goes on. Only
if that fails does the episode end (GameEmulatorLostError).

Jericho only knows some story files by hash. For the others (such as the MIT-licensed
Release 119 `zork1.z3`) score and moves stay 0 and the location is unknown, but every
observation starts with the game's own status line; after each command the game process
peeks one step ahead (save, `look`, restore) to learn the values after it.
"""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from zork_mcp.adapters.game.jericho.emulator_process import EmulatorDied, EmulatorProcess
from zork_mcp.adapters.game.jericho.story import load_lexicon
from zork_mcp.adapters.game.jericho.wire import Frame, FrotzState, WireError
from zork_mcp.adapters.posix.landlock import abi_version
from zork_mcp.domain.errors import GameEmulatorLostError, GameHaltedError
from zork_mcp.domain.facts.confinement_notices import game_notice
from zork_mcp.domain.facts.events import Event, Level
from zork_mcp.domain.facts.notice_facts import EmulatorRestarted
from zork_mcp.domain.game.game import GameObservation
from zork_mcp.domain.game.game_command import CommandRules, notice_text, safe_command
from zork_mcp.domain.game.status_line import (
    StatusLine,
    is_game_over,
    parse_status_line,
    strip_status_line,
)
from zork_mcp.domain.game.story_file import GameLexicon, location_object

CRASH_NOTICE = (
    "The game's interpreter failed on that command and was restarted where you were; "
    "the command was not played. Try something else."
)


@dataclass(frozen=True)
class GameSnapshot:
    """The game at one moment: the emulator's state and the status line it showed."""

    frotz: FrotzState
    status: StatusLine

    @property
    def location(self) -> int:
        return location_object(self.frotz.ram)

    def observed(self, text: str, game_over: bool = False) -> GameObservation:
        """`text` as the game's answer at this moment."""
        status = self.status
        return GameObservation(
            text,
            status.room or None,
            status.score,
            status.moves,
            game_over,
            location=self.location,
        )

    def to_bytes(self) -> bytes:
        """The snapshot as a checkpoint keeps it: its status line as JSON, then its state."""
        status = json.dumps([self.status.room, self.status.score, self.status.moves]).encode()
        return _SNAPSHOT.pack(SNAPSHOT_MAGIC, len(status)) + status + self.frotz.to_bytes()

    @classmethod
    def of(cls, state: object) -> GameSnapshot:
        """A snapshot from its bytes, or one an old checkpoint.pickle held (a snapshot, or the
        (Jericho state, status) pair from before the game had a process of its own);
        TypeError for anything else."""
        if isinstance(state, bytes):
            return cls._from_bytes(state)
        if isinstance(state, GameSnapshot):
            return state
        try:
            jericho_state, status = state  # type: ignore[misc]
            frotz = FrotzState.of_jericho(jericho_state)
        except (TypeError, ValueError, AttributeError, IndexError) as e:
            raise TypeError(f"not a snapshot of this game: {type(state).__name__}") from e
        if not isinstance(status, StatusLine):
            raise TypeError(f"not a snapshot of this game: its status is {type(status).__name__}")
        return cls(frotz, status)

    @classmethod
    def _from_bytes(cls, data: bytes) -> GameSnapshot:
        try:
            magic, size = _SNAPSHOT.unpack_from(data)
            if magic != SNAPSHOT_MAGIC:
                raise ValueError("it does not start as a game snapshot does")
            end = _SNAPSHOT.size + size
            room, score, moves = json.loads(data[_SNAPSHOT.size : end])
            status = StatusLine(str(room), int(score), int(moves))
            return cls(FrotzState.from_bytes(data[end:]), status)
        except (struct.error, ValueError, TypeError, WireError) as e:
            raise TypeError(f"not a snapshot of this game: {e}") from e


SNAPSHOT_MAGIC = b"ZMS1"
_SNAPSHOT = struct.Struct(">4sI")  # magic, the status line's JSON length


class JerichoGameEnv:
    def __init__(
        self,
        game_file: Path,
        seed: int | None = 12,
        *,
        allow_quit_restart: bool = False,
        end_at_first_death: bool = False,
        on_event: Callable[[Event], None] | None = None,
        forked: bool = False,
        landlock_abi: Callable[[], int] = abi_version,
        final_words: tuple[str, ...] = (),
        lexicon: GameLexicon | None = None,
    ) -> None:
        """`forked`: game processes are forked from a preloaded parent (for a process that
        plays many games, a sweep worker) rather than started as new interpreters.
        `end_at_first_death`: the game is over at Jericho's `done`, which a death sets though
        Zork I reincarnates the player; by default it is over when the game itself ends, at
        its RESTART/RESTORE/QUIT prompt (after a victory, or a death it does not survive).
        `final_words`: what the game says when it ends itself without its end prompt (its
        profile's), which ends the game here too. `lexicon`: the story file's dictionary, as
        its Story read it (None: read from `game_file` here). `landlock_abi`: what the kernel
        offers to confine the game process with; what it cannot confine is said once, as an
        event."""
        self._story, self._seed = Path(game_file), seed
        self._rules = CommandRules.for_game(
            lexicon or load_lexicon(self._story), allow_quit_restart=allow_quit_restart
        )
        self._on_event = on_event or _log_event
        self._forked = forked
        self._end_at_first_death = end_at_first_death
        self._final_words = final_words
        self._process: EmulatorProcess | None = None
        notice = game_notice(landlock_abi())
        if notice is not None:
            self._on_event(notice)
        self._started()
        self._snapshot: GameSnapshot | None = None
        self._pending: FrotzState | None = None  # restored here, not yet in the process
        self.restarts = 0

    def reset(self) -> GameObservation:
        process = self._process or self._started()
        self._pending = None
        try:
            frame = process.ask({"op": "reset"})
        except EmulatorDied as death:
            self.close()
            raise self._cannot_start(death) from death
        self._checked(frame, "reset")
        return self._observed(frame, None)

    def step(self, action: str) -> GameObservation:
        return self._play(action, "step", self._observed)

    def peek(self, action: str) -> GameObservation:
        """One trip to the game process, which steps and restores; no state travels."""
        return self._play(action, "peek", self._answered)

    def _play(
        self, action: str, op: str, read: Callable[[Frame, GameSnapshot], GameObservation]
    ) -> GameObservation:
        verdict = safe_command(action, self._rules)
        last = self._current()
        if verdict.command is None:
            return replace(self._unchanged(verdict.notice), refused=True)
        try:
            frame = self._ask({"op": op, "command": verdict.command})
        except EmulatorDied as death:
            self._recover(verdict.command, death)
            return self._unchanged(CRASH_NOTICE)
        observation = read(self._checked(frame, verdict.command), last)
        return replace(observation, text=notice_text(verdict, observation.text))

    def save_state(self) -> bytes:
        return self._current().to_bytes()

    def restore_state(self, state: bytes) -> GameObservation:
        state = GameSnapshot.of(state)
        self._current()
        self._snapshot, self._pending = state, state.frotz
        return state.observed("")

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None

    @property
    def process_id(self) -> int | None:
        return self._process.pid if self._process else None

    def _ask(self, request: dict[str, Any]) -> Frame:
        """Ask the game process, loading a restored snapshot first if one is pending."""
        frame = self._live_process().ask(request, self._pending)
        self._pending = None
        return frame

    def _recover(self, command: str, death: EmulatorDied) -> None:
        """A new game process at the last snapshot, or GameEmulatorLostError."""
        snapshot = self._current()
        self.close()
        try:
            self._process = EmulatorProcess(self._story, self._seed, forked=self._forked)
            self._process.ask({"op": "load"}, snapshot.frotz)
        except (EmulatorDied, OSError) as e:
            self.close()
            raise GameEmulatorLostError(
                f"The game process died on the command {command!r} ({death}) and a new one "
                f"could not take over the game ({e}). Start a new episode."
            ) from e
        self._pending = None
        self.restarts += 1
        text = (
            f"The game process died on the command {command!r} ({death}); a new one took "
            "over the game where it was, and the command was not played"
        )
        restarted = EmulatorRestarted(command, str(death), self.restarts)
        self._on_event(Event.about(restarted, text, Level.WARNING))

    def _started(self) -> EmulatorProcess:
        try:
            self._process = EmulatorProcess(self._story, self._seed, forked=self._forked)
        except OSError as e:
            raise self._cannot_start(e) from e
        return self._process

    def _cannot_start(self, cause: BaseException) -> GameEmulatorLostError:
        return GameEmulatorLostError(
            f"The game process could not start the game ({cause}). Check that Jericho is "
            f"installed (pip install -e .) and that {self._story} is a Z-machine story file; "
            "the game process's own error, if any, is printed above."
        )

    def _live_process(self) -> EmulatorProcess:
        if self._process is None:
            raise GameHaltedError("The Z-machine has halted; no further command is possible.")
        return self._process

    def _current(self) -> GameSnapshot:
        self._live_process()
        if self._snapshot is None:
            raise GameHaltedError("The game has not been started: call reset() first.")
        return self._snapshot

    def _checked(self, frame: Frame, command: str) -> Frame:
        if frame.message.get("halted"):
            self.close()
            raise GameHaltedError(
                f"The Z-machine halted on the command {command!r}; the game cannot go on. "
                "Start a new episode."
            )
        return frame

    def _unchanged(self, notice: str) -> GameObservation:
        return self._current().observed(f"[{notice}]")

    def _observed(self, frame: Frame, last: GameSnapshot | None) -> GameObservation:
        """A step's answer; its state becomes the snapshot kept for a replacement process."""
        reply = frame.message
        if frame.state is None:
            raise GameEmulatorLostError("The game process answered a step without its state.")
        status = self._status(reply) or (last.status if last else StatusLine("", 0, 0))
        self._snapshot = GameSnapshot(frame.state, status)
        text = strip_status_line(str(reply["text"]))
        over = is_game_over(text, self._final_words) or (
            self._end_at_first_death and bool(reply["done"])
        )
        return self._snapshot.observed(text, over)

    def _answered(self, frame: Frame, last: GameSnapshot) -> GameObservation:
        return last.observed(strip_status_line(str(frame.message["text"])))

    def _status(self, reply: dict[str, Any]) -> StatusLine | None:
        if reply["status"]:
            return parse_status_line(str(reply["status"]))
        return StatusLine(str(reply["location"]), int(reply["score"]), int(reply["moves"]))


def _log_event(event: Event) -> None:
    logging.getLogger(__name__).warning("%s: %s", event.type, event.message)
