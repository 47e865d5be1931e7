"""One episode's state: the turns played, the objective, the notes and what the servers'
connections came to; and its checkpoint, the game's saved state beside it. The orchestrator
owns it, the checkpoint saves it whole, and the history the agent is shown and the map of its
episode are read from it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from zork_mcp.domain.episode.episode import EndReason, EpisodeSummary
from zork_mcp.domain.servers.connection import ServerConnections
from zork_mcp.domain.tools.tool_offer import ToolNotices


@dataclass(frozen=True)
class Place:
    """A room as the game names it and as the Z-machine knows it (its object; 0 unknown)."""

    room: str
    location: int = 0


@dataclass(frozen=True)
class PlayedTurn:
    """One command and the game's whole answer, with where it left the player."""

    turn: int
    command: str
    answer: str
    place: Place
    score: int = 0
    score_change: int = 0
    died: bool = False


@dataclass(frozen=True)
class Note:
    """A note the agent wrote (the memory server's `add_note`), and the turn it wrote it in."""

    turn: int
    text: str


@dataclass
class EpisodeState:
    """Everything an episode remembers, so `--resume` continues exactly where it was."""

    summary: EpisodeSummary
    start: Place = Place("")
    opening: str = ""  # the game's first text, before any command
    turns: list[PlayedTurn] = field(default_factory=list)
    objective: str | None = None
    notes: tuple[Note, ...] = ()
    connections: ServerConnections = field(default_factory=ServerConnections)
    notices: ToolNotices = field(default_factory=ToolNotices)

    @property
    def turn(self) -> int:
        """The number of the last turn played (0 before the first)."""
        return self.turns[-1].turn if self.turns else 0

    @property
    def next_turn(self) -> int:
        return self.turn + 1

    @property
    def place(self) -> Place:
        """Where the player is now."""
        return self.turns[-1].place if self.turns else self.start

    def played(self, turn: PlayedTurn) -> None:
        self.turns.append(turn)

    def answer_before(self, index: int) -> str:
        """The game text the agent saw before the turn at `index` of `turns`."""
        return self.turns[index - 1].answer if index > 0 else self.opening

    def steps(self) -> Iterator[tuple[Place, PlayedTurn]]:
        """Each turn with the place it was played from."""
        return moves_from(self.start, self.turns)

    def copy(self) -> EpisodeState:
        """A snapshot that later turns do not change (the checkpoint's)."""
        return replace(self, summary=replace(self.summary), turns=list(self.turns))


def moves_from(start: Place, turns: Sequence[PlayedTurn]) -> Iterator[tuple[Place, PlayedTurn]]:
    """Each turn with the place it was played from: the start, then the turn before's."""
    here = start
    for turn in turns:
        yield here, turn
        here = turn.place


def unchanged_repeat(state: EpisodeState, turn: PlayedTurn) -> bool:
    """`turn` (about to be played after `state`'s turns) repeats a command played before from
    the same place, and the game answered it as it did then: a move that changed nothing."""
    here, command = state.place, _folded(turn.command)
    if turn.place != here or turn.score_change:
        return False
    return any(
        before == here and _folded(earlier.command) == command and earlier.answer == turn.answer
        for before, earlier in state.steps()
    )


def _folded(command: str) -> str:
    return " ".join(command.lower().split())


@dataclass(frozen=True)
class Checkpoint:
    """The game's saved state and the episode's, whole: what `--resume` goes on from."""

    game_state: object
    episode: EpisodeState

    @property
    def turn(self) -> int:
        return self.episode.turn

    @property
    def summary(self) -> EpisodeSummary:
        return self.episode.summary

    def finished(self, max_turns: int) -> str | None:
        """Why a `--resume` to `max_turns` would play nothing (None: it plays on): the game
        ended, or the episode has played its turns."""
        ended, turns = self.summary.end_reason, self.turn
        if ended is EndReason.GAME_OVER:
            return f"its game ended after turn {turns} (score {self.summary.score})"
        if turns >= max_turns:
            return (
                f"it has played {turns} turns, and --max-turns is {max_turns}: raise "
                "--max-turns to play on"
            )
        return None

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "episode" not in state:  # written before the episode's state was kept whole
            state = {"game_state": state["game_state"], "episode": _episode_before(state)}
        self.__dict__.update(state)


def _episode_before(saved: dict[str, Any]) -> EpisodeState:
    """An older checkpoint's turn, objective, recent actions and totals as an episode state;
    only its last actions were kept, each with its answer."""
    summary: EpisodeSummary = saved["summary"]
    recent = list(saved.get("recent") or ())
    first = saved["turn"] - len(recent) + 1
    place = Place(summary.room or "")
    turns = [
        PlayedTurn(first + index, command, answer, place)
        for index, (command, answer) in enumerate(recent)
    ]
    return EpisodeState(summary, start=place, turns=turns, objective=saved.get("objective"))
