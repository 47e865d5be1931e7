"""The synchronous episode loop: show the agent the game, play its command, repeat."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from zork_mcp.app.agent import Decision, ZorkAgent
from zork_mcp.domain.episode.episode import EndReason, EpisodeSummary
from zork_mcp.domain.episode.episode_state import (
    Checkpoint,
    EpisodeState,
    Note,
    Place,
    PlayedTurn,
    unchanged_repeat,
)
from zork_mcp.domain.episode.history import DEFAULT_HISTORY, HistoryPolicy, TurnView, turn_messages
from zork_mcp.domain.episode.memories import relevant_memories
from zork_mcp.domain.episode.turn_facts import TurnFacts, tool_uses
from zork_mcp.domain.errors import (
    GameEmulatorLostError,
    GameHaltedError,
    LLMError,
    MCPServerStartupError,
    ServerFileError,
)
from zork_mcp.domain.facts.episode_facts import (
    BudgetReached,
    EpisodeEnded,
    EpisodeFact,
    EpisodeResumed,
    EpisodeStarted,
    TurnCompleted,
)
from zork_mcp.domain.facts.events import Event, Level
from zork_mcp.domain.facts.notice_facts import RepliesUnreadable, ServerFileSkipped
from zork_mcp.domain.game.game import GameObservation
from zork_mcp.domain.game.game_text import died, unread
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.llm.budget import BudgetSpent, SpendGuard
from zork_mcp.domain.llm.messages import Message, Usage
from zork_mcp.domain.loop.agent_response import FALLBACK_ACTION
from zork_mcp.domain.loop.loop_records import LoopOutcome, ToolCallRecord
from zork_mcp.ports.checkpoints import Checkpoints
from zork_mcp.ports.episode_journal import EpisodeJournal
from zork_mcp.ports.game_env import GameEnv
from zork_mcp.ports.telemetry import Telemetry

OBSERVATION_CHARS = 4000  # of the game's answer in a turn's event (Zork's are far shorter)


@dataclass(frozen=True)
class TurnReport:
    action: str
    observation: GameObservation
    usage: Usage
    facts: TurnFacts
    mcp_disabled: bool = False  # MCP disabled for the rest of the episode, as of this turn
    calls: tuple[ToolCallRecord, ...] = ()  # the turn's tool calls, each with its result
    unreadable: str | None = None  # why the model's reply could not be read (the fallback played)

    @property
    def turn(self) -> int:
        return self.facts.turn


class Progress(Protocol):
    def begin(self, state: EpisodeState) -> None:
        """The episode starts (`state.opening`), or resumes after `state.turns`."""
        ...

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None: ...


class Orchestrator:
    def __init__(
        self,
        *,
        game: GameEnv,
        profile: GameProfile,
        agent: ZorkAgent,
        telemetry: Telemetry,
        episode_id: str,
        max_turns: int,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
        checkpoints: Checkpoints | None = None,
        resume: bool = False,
        history: HistoryPolicy = DEFAULT_HISTORY,
        journal: EpisodeJournal | None = None,
        guard: SpendGuard | None = None,
        max_unreadable: int = 5,
    ) -> None:
        """`profile`: the game played, whose words tell a death, a command it did not read
        and the map's exits. `guard`: the run's budget (None: no limit), which the agent's
        LLM asks before each call; the episode ends at the turn boundary before a call it
        refuses. `max_unreadable`: replies in a row the agent could not read (each played
        as the fallback command, said and counted) that end the episode."""
        self._game, self._profile, self._agent, self._telemetry = game, profile, agent, telemetry
        self._guard = guard
        self._max_turns, self._progress, self._clock = max_turns, progress, clock
        self._checkpoints, self._resume = checkpoints, resume
        self._history, self._journal = history, journal
        self._skipped: set[str] = set()  # why a server's file was skipped, each said once
        self._max_unreadable, self._unreadable_streak = max_unreadable, 0
        self.budget_reached: BudgetReached | None = None  # what stopped it, if a budget did
        self.state = EpisodeState(
            EpisodeSummary(episode_id), connections=agent.connection, notices=agent.notices
        )

    @property
    def summary(self) -> EpisodeSummary:
        return self.state.summary

    def run(self) -> EpisodeSummary:
        started = self._clock()
        observation = self._restore() if self._resume else self._begin(self._game.reset())
        self._timed_from = (started, self.summary.seconds)  # this run's start, the runs' before
        place = self.state.place
        started_with = EpisodeStarted(
            self._agent.tool_server is not None,
            self._max_turns,
            room=place.room,
            location=place.location,
            turn=self.state.turn,
        )
        self._report(started_with, f"Episode {self.summary.episode_id} started")
        if self._progress is not None:
            self._progress.begin(self.state)
        try:
            observation = self._play(observation)
            self._keep_the_end()
        except KeyboardInterrupt:
            self.summary.end_reason = EndReason.INTERRUPTED
        except GameHaltedError as error:
            self._end_on_error(EndReason.EMULATOR_HALTED, error)
        except GameEmulatorLostError as error:
            self._end_on_error(EndReason.EMULATOR_LOST, error)
        except BaseException as error:
            self._end_on_error(_end_reason_of(error), error)
            raise
        finally:
            self._time()
            self._report(
                EpisodeEnded.of(self.summary),
                f"Episode ended ({self.summary.end_reason}): score "
                f"{self.summary.score} in {self.summary.moves} moves",
                Level.ERROR if self.summary.error else Level.INFO,
            )
        return self.summary

    def _play(self, observation: GameObservation) -> GameObservation:
        while not observation.game_over:
            if self.summary.turns >= self._max_turns:
                self.summary.end_reason = EndReason.TURN_LIMIT
                return observation
            if self._guard is not None:
                self._guard.restart(self.summary.usage)
            try:
                observation = self._turn()
            except BudgetSpent as spent:
                self._stop_for_budget(spent)
                return observation
            if self._unreadable_streak >= self._max_unreadable:
                self._stop_for_unreadable()
                return observation
        self.summary.end_reason = EndReason.GAME_OVER
        return observation

    def _turn(self) -> GameObservation:
        state = self.state
        decision = self._agent.decide_turn(self.messages(), state.next_turn)
        action = decision.action or FALLBACK_ACTION
        state.objective = decision.new_objective or state.objective
        after = self._game.step(action)
        played = played_turn(state, action, after, self._profile)
        report = self._record(played, decision, after)
        state.played(played)
        if self._journal is not None:
            self._journal.record(played)
        if self._checkpoints is not None:
            self._time()  # so a resumed episode's time goes on from its checkpoint's
            self._checkpoints.save(self.checkpoint())
        if self._progress is not None:
            self._progress.turn(report, self.summary)
        return after

    def _keep_the_end(self) -> None:
        """The last checkpoint says how the episode ended, so a `--resume` of a finished
        episode can say so before it starts anything."""
        if self._checkpoints is not None and self.summary.end_reason is not EndReason.BUDGET:
            self._time()
            self._checkpoints.save(self.checkpoint())

    def _stop_for_unreadable(self) -> None:
        """End after `max_unreadable` replies in a row the agent could not read: playing
        the fallback on would store turns the model never chose."""
        self.summary.end_reason = EndReason.UNREADABLE_REPLIES
        stopped = RepliesUnreadable(self.state.turn, self._unreadable_streak)
        self._telemetry.emit(Event.about(stopped, stopped.line(FALLBACK_ACTION), Level.WARNING))

    def _stop_for_budget(self, spent: BudgetSpent) -> None:
        """End where the last turn ended: the turn the budget cut is not played, what its
        calls cost is counted, and the checkpoint says so (a `--resume` with a higher
        budget plays that turn again)."""
        self.summary.usage = spent.spent
        self.summary.end_reason = EndReason.BUDGET
        if self._checkpoints is not None:
            self._time()
            self._checkpoints.save(self.checkpoint())
        reached = BudgetReached(
            turn=self.state.turn,
            budget_usd=spent.budget.usd,
            budget_tokens=spent.budget.tokens,
            spent_usd=spent.spent.cost_usd,
            spent_tokens=spent.spent.total_tokens,
            next_call_usd=spent.estimate.usd,
            next_call_tokens=spent.estimate.tokens,
        )
        self.budget_reached = reached
        text = f"{spent} The episode stops after turn {reached.turn}: raise the budget and "
        self._report(reached, text + "--resume to play on.", Level.WARNING)

    def messages(self) -> list[Message]:
        """What the agent is shown this turn: its history and where it stands now."""
        state = self.state
        if self._journal is not None:
            state.notes = self._notes(state.notes)
        view = TurnView(
            latest=state.answer_before(len(state.turns)),
            inventory=self._inventory(),
            memories=relevant_memories(state, self._profile),
        )
        return turn_messages(self._agent.system_prompt, state, view, self._history)

    def _notes(self, before: tuple[Note, ...]) -> tuple[Note, ...]:
        """The notes as the journal reads them now; those of before, and a notice said once
        per reason, when the memory server's notes file cannot be read as one."""
        try:
            return self._journal.notes()
        except ServerFileError as e:
            if e.reason not in self._skipped:
                self._skipped.add(e.reason)
                skipped = ServerFileSkipped(e.path, e.reason)
                text = f"The memory server's notes were not read: {e.reason}"
                self._telemetry.emit(Event.about(skipped, text, Level.WARNING))
            return before

    def _time(self) -> None:
        """The episode's wall time: this run's so far, after the runs it resumed."""
        started, before = self._timed_from
        self.summary.seconds = before + self._clock() - started

    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self._game.save_state(), self.state.copy())

    def _begin(self, observation: GameObservation) -> GameObservation:
        self.state.start = Place(observation.room or "", observation.location)
        self.state.opening = observation.text
        if self._journal is not None:
            self._journal.begin(self.state.start, self.state.opening, 0)
        return observation

    def _restore(self) -> GameObservation:
        """Continue from the episode's last checkpoint (`--resume`)."""
        assert self._checkpoints is not None
        saved = self._checkpoints.load()
        self._game.reset()
        observation = self._game.restore_state(saved.game_state)
        state = saved.episode
        state.summary = replace(state.summary, end_reason=EndReason.RUNNING, error=None)
        self._agent.connection, self._agent.notices = state.connections, state.notices
        self.state = state
        if self._journal is not None:
            self._journal.begin(state.start, state.opening, state.turn)
        text, score = f"Resumed after turn {state.turn}", state.summary.score
        self._report(EpisodeResumed(state.turn, score), text)
        return observation

    def _record(self, played: PlayedTurn, decision: Decision, after: GameObservation) -> TurnReport:
        outcome = decision.outcome
        summary = self.summary
        summary.turns += 1
        repeated = unchanged_repeat(self.state, played)
        unreadable = decision.unreadable is not None
        facts = turn_facts(
            played, after, outcome, self._profile, repeated=repeated, unreadable=unreadable
        )
        summary.score, summary.moves, summary.room = after.score, after.moves, after.room
        summary.tool_calls += facts.tool_calls
        summary.unreadable_replies += unreadable
        self._unreadable_streak = self._unreadable_streak + 1 if unreadable else 0
        summary.usage = summary.usage + outcome.usage
        completed = TurnCompleted(
            facts,
            action=played.command,
            reasoning=decision.reasoning,
            observation=after.text[:OBSERVATION_CHARS],
            iterations=outcome.iterations,
        )
        self._report(completed, f"Agent action: {played.command}")
        disabled = self._agent.connection.is_disabled
        calls = tuple(outcome.tool_chain)
        return TurnReport(
            played.command, after, outcome.usage, facts, disabled, calls, decision.unreadable
        )

    def _inventory(self) -> str:
        return " ".join(self._game.peek("inventory").text.split()) or "unknown"

    def _end_on_error(self, reason: EndReason, error: BaseException) -> None:
        self.summary.end_reason = reason
        self.summary.error = f"{type(error).__name__}: {error}"

    def _report(self, payload: EpisodeFact, message: str, level: Level = Level.INFO) -> None:
        self._telemetry.emit(Event.of(payload, message, level))


def played_turn(
    state: EpisodeState, command: str, after: GameObservation, game: GameProfile
) -> PlayedTurn:
    """The turn about to be recorded: its command, the game's whole answer, where it left."""
    return PlayedTurn(
        turn=state.next_turn,
        command=command,
        answer=after.text,
        place=Place(after.room or "", after.location),
        score=after.score,
        score_change=after.score - state.summary.score,
        died=died(after.text, game),
    )


def turn_facts(
    played: PlayedTurn,
    after: GameObservation,
    outcome: LoopOutcome,
    game: GameProfile,
    *,
    repeated: bool = False,
    unreadable: bool = False,
) -> TurnFacts:
    """The turn's facts from what the game answered and how the agent decided."""
    chain, usage = outcome.tool_chain, outcome.usage
    return TurnFacts(
        turn=played.turn,
        score=played.score,
        moves=after.moves,
        tool_calls=len(chain),
        room=played.place.room,
        location=played.place.location,
        valid=not (after.refused or unread(after.text, game)),
        died=played.died,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        llm_seconds=round(outcome.llm_seconds, 3),
        tool_errors=sum(1 for call in chain if call.result.is_error),
        tools=tool_uses((call.tool_name, 1, int(call.result.is_error)) for call in chain),
        repeated=repeated,
        cost_usd=usage.cost_usd,
        unreadable=unreadable,
    )


def _end_reason_of(error: BaseException) -> EndReason:
    if isinstance(error, MCPServerStartupError):
        return EndReason.MCP_STARTUP_FAILED
    if isinstance(error, LLMError):
        return EndReason.LLM_ERROR
    return EndReason.ERROR
