"""The synchronous episode loop: show the agent the game, play its command, repeat."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from zork_mcp.app.agent import ZorkAgent
from zork_mcp.domain.episode import Checkpoint, EndReason, EpisodeSummary
from zork_mcp.domain.episode_facts import EpisodeEnded, EpisodeFact, EpisodeStarted, TurnCompleted
from zork_mcp.domain.errors import (
    GameEmulatorLostError,
    GameHaltedError,
    LLMError,
    MCPServerStartupError,
)
from zork_mcp.domain.events import Event, EventType, Level
from zork_mcp.domain.game import GameObservation
from zork_mcp.domain.game_text import died, unread
from zork_mcp.domain.loop_records import LoopOutcome
from zork_mcp.domain.messages import Usage
from zork_mcp.domain.turn_facts import TurnFacts, tool_uses
from zork_mcp.ports.checkpoints import Checkpoints
from zork_mcp.ports.game_env import GameEnv
from zork_mcp.ports.telemetry import Telemetry

RECENT_ACTIONS = 5
OBSERVATION_CHARS = 4000  # of the game's answer in a turn's event (Zork's are far shorter)


@dataclass(frozen=True)
class TurnReport:
    action: str
    observation: GameObservation
    usage: Usage
    facts: TurnFacts
    mcp_disabled: bool = False  # MCP disabled for the rest of the episode, as of this turn

    @property
    def turn(self) -> int:
        return self.facts.turn


class Progress(Protocol):
    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None: ...


class Orchestrator:
    def __init__(
        self,
        *,
        game: GameEnv,
        agent: ZorkAgent,
        telemetry: Telemetry,
        episode_id: str,
        max_turns: int,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
        checkpoints: Checkpoints | None = None,
        resume: bool = False,
    ) -> None:
        self._game, self._agent, self._telemetry = game, agent, telemetry
        self._max_turns, self._progress, self._clock = max_turns, progress, clock
        self.summary = EpisodeSummary(episode_id)
        self._recent: deque[tuple[str, str]] = deque(maxlen=RECENT_ACTIONS)
        self._objective: str | None = None
        self._checkpoints, self._resume = checkpoints, resume

    def run(self) -> EpisodeSummary:
        started = self._clock()
        observation = self._restore() if self._resume else self._game.reset()
        started_with = EpisodeStarted(self._agent.tool_server is not None, self._max_turns)
        self._report(started_with, f"Episode {self.summary.episode_id} started")
        try:
            observation = self._play(observation)
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
            self.summary.seconds += self._clock() - started
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
            observation = self._turn(observation)
        self.summary.end_reason = EndReason.GAME_OVER
        return observation

    def _turn(self, observation: GameObservation) -> GameObservation:
        decision = self._agent.get_action_with_reasoning(self.state_text(observation))
        action = decision["action"] or "look"
        self._objective = decision.get("new_objective") or self._objective
        after = self._game.step(action)
        self._recent.append((action, after.text))
        report = self._record(action, decision.get("reasoning") or "", after)
        if self._checkpoints is not None:
            self._checkpoints.save(self.checkpoint())
        if self._progress is not None:
            self._progress.turn(report, self.summary)
        return after

    def checkpoint(self) -> Checkpoint:
        return Checkpoint(
            self.summary.turns,
            self._game.save_state(),
            self._objective,
            tuple(self._recent),
            replace(self.summary),
        )

    def _restore(self) -> GameObservation:
        """Continue from the episode's last checkpoint (`--resume`)."""
        assert self._checkpoints is not None
        saved = self._checkpoints.load()
        self._game.reset()
        observation = self._game.restore_state(saved.game_state)
        self._objective = saved.objective
        self._recent.extend(saved.recent)
        self.summary = replace(saved.summary, end_reason=EndReason.RUNNING, error=None)
        self._emit(EventType.EPISODE_RESUMED, f"Resumed after turn {saved.turn}", turn=saved.turn)
        return observation

    def _record(self, action: str, reasoning: str, after: GameObservation) -> TurnReport:
        outcome = self._agent.last_outcome
        usage = outcome.usage if outcome else Usage()
        summary = self.summary
        summary.turns += 1
        facts = turn_facts(summary.turns, after, outcome)
        summary.score, summary.moves, summary.room = after.score, after.moves, after.room
        summary.tool_calls += facts.tool_calls
        summary.usage = summary.usage + usage
        completed = TurnCompleted(
            facts,
            action=action,
            reasoning=reasoning,
            observation=after.text[:OBSERVATION_CHARS],
            iterations=outcome.iterations if outcome else 0,
        )
        self._report(completed, f"Agent action: {action}")
        disabled = self._agent.connection.is_disabled
        return TurnReport(action, after, usage, facts, disabled)

    def state_text(self, observation: GameObservation) -> str:
        """What the agent sees: the game text and the facts it needs around it."""
        lines = [
            f"Location: {observation.room or 'Unknown'} | Score: {observation.score} | "
            f"Moves: {observation.moves}",
            f"Inventory: {self._inventory()}",
            f"Current objective: {self._objective or 'none yet'}",
        ]
        if self._recent:
            lines.append("Recent actions:")
            lines += [
                f"  > {action} -> {' '.join(text.split())[:80]}" for action, text in self._recent
            ]
        lines += ["", "Latest game text:", observation.text]
        return "\n".join(lines)

    def _inventory(self) -> str:
        return " ".join(self._game.peek("inventory").text.split()) or "unknown"

    def _end_on_error(self, reason: EndReason, error: BaseException) -> None:
        self.summary.end_reason = reason
        self.summary.error = f"{type(error).__name__}: {error}"

    def _emit(
        self, kind: EventType, message: str, *, level: Level = Level.INFO, **fields: object
    ) -> None:
        self._telemetry.emit(Event(kind, message, level, fields))

    def _report(self, payload: EpisodeFact, message: str, level: Level = Level.INFO) -> None:
        self._telemetry.emit(Event.of(payload, message, level))


def turn_facts(turn: int, after: GameObservation, outcome: LoopOutcome | None) -> TurnFacts:
    """The turn's facts from what the game answered and how the agent decided."""
    chain = outcome.tool_chain if outcome else ()
    usage = outcome.usage if outcome else Usage()
    return TurnFacts(
        turn=turn,
        score=after.score,
        moves=after.moves,
        tool_calls=len(chain),
        room=after.room or "",
        valid=not (after.refused or unread(after.text)),
        died=died(after.text),
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        llm_seconds=round(outcome.llm_seconds, 3) if outcome else 0.0,
        tool_errors=sum(1 for call in chain if call.result.is_error),
        tools=tool_uses((call.tool_name, 1, int(call.result.is_error)) for call in chain),
    )


def _end_reason_of(error: BaseException) -> EndReason:
    if isinstance(error, MCPServerStartupError):
        return EndReason.MCP_STARTUP_FAILED
    if isinstance(error, LLMError):
        return EndReason.LLM_ERROR
    return EndReason.ERROR
