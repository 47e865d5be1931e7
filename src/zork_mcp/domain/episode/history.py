"""What the agent is shown each turn: the game it has played, laid out so that consecutive
turns share a growing prefix a provider can cache.

Three policies (`[tool.zorkgpt] history`):
- `window`: the last `history_turns` turns as earlier messages (the game's text as a user
  message, the command played as the agent's answer), whole, within `history_budget_tokens`
  (the remembered messages as a request measures them, `domain/llm/tokens.py`);
- `full`: every turn, within the same budget;
- `state`: no earlier messages, only the five latest actions cut to 80 characters (the view
  before history, kept for comparison).
The latest game text is always in the last message, whole. Past the window or the budget the
oldest turns go a block at a time, so the prefix breaks once a block, not every turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from zork_mcp.domain.episode.episode_state import EpisodeState, PlayedTurn
from zork_mcp.domain.llm.messages import (
    Message,
    assistant_content_message,
    system_message,
    user_message,
)
from zork_mcp.domain.llm.tokens import message_chars, tokens_in

STATE_RECENT_ACTIONS = 5
STATE_ANSWER_CHARS = 80


class HistoryMode(StrEnum):
    WINDOW = "window"
    FULL = "full"
    STATE = "state"


@dataclass(frozen=True)
class HistoryPolicy:
    """How much of its game the agent sees: `turns` in a window (`full`: all), within
    `budget_tokens`; the oldest go `block` turns at a time."""

    mode: HistoryMode = HistoryMode.WINDOW
    turns: int = 30
    budget_tokens: int = 8000
    block: int = 10

    def __post_init__(self) -> None:
        if self.turns < 1 or self.budget_tokens < 0 or self.block < 1:
            raise ValueError("history turns and block must be at least 1, the budget at least 0")

    @property
    def step(self) -> int:
        """Turns dropped at once: a block, never more than the window holds."""
        return min(self.block, self.turns) if self.mode is HistoryMode.WINDOW else self.block

    def describe(self) -> str:
        if self.mode is HistoryMode.STATE:
            return "state"
        window = f"{self.turns} turns" if self.mode is HistoryMode.WINDOW else "all turns"
        return f"{self.mode}: {window} within {self.budget_tokens} tokens"


DEFAULT_HISTORY = HistoryPolicy()


@dataclass(frozen=True)
class TurnView:
    """What the agent is told of this turn beside its history."""

    latest: str  # the game's answer to the last command (or its opening), whole
    inventory: str
    memories: str | None = None


def turn_messages(
    system_prompt: str, state: EpisodeState, view: TurnView, policy: HistoryPolicy
) -> list[Message]:
    """The system prompt, the remembered turns as earlier messages, then this turn."""
    start = remembered_from(state, policy)
    past: list[Message] = []
    for index in range(start, len(state.turns)):
        past += past_messages(state, index)
    return [system_message(system_prompt), *past, user_message(current_text(state, view, policy))]


def past_messages(state: EpisodeState, index: int) -> list[Message]:
    """A remembered turn: the game's text it was played from, and the agent's answer."""
    return [
        user_message(past_game_text(state, index)),
        assistant_content_message(past_answer(state.turns[index])),
    ]


def remembered_from(state: EpisodeState, policy: HistoryPolicy) -> int:
    """The index of the oldest turn remembered: a multiple of the policy's step, the smallest
    that keeps the window and the budget (it only moves forward as the episode goes on)."""
    played = len(state.turns)
    if policy.mode is HistoryMode.STATE:
        return played
    step = policy.step
    start = 0
    if policy.mode is HistoryMode.WINDOW:
        start = -(-max(0, played - policy.turns) // step) * step
    # the remembered messages' `messages_tokens`, from each turn's characters counted once
    first = start
    costs = [turn_chars(state, index) for index in range(first, played)]
    while start < played and tokens_in(sum(costs[start - first :])) > policy.budget_tokens:
        start += step
    return min(start, played)


def turn_chars(state: EpisodeState, index: int) -> int:
    """What one remembered turn adds to a request's measure: its two messages."""
    return sum(map(message_chars, past_messages(state, index)))


def past_game_text(state: EpisodeState, index: int) -> str:
    """The game's text a remembered turn was played from, whole."""
    before = state.turns[index - 1].turn if index > 0 else 0
    label = f"After turn {before}" if before else "The game begins"
    return f"[{label}]\n{state.answer_before(index)}"


def past_answer(turn: PlayedTurn) -> str:
    """A remembered turn's command, as the agent answers (the reply format it is asked for)."""
    return json.dumps({"action": turn.command})


def current_text(state: EpisodeState, view: TurnView, policy: HistoryPolicy) -> str:
    """This turn's message: where the agent stands, and the latest game text whole."""
    place, summary = state.place, state.summary
    turn = "" if policy.mode is HistoryMode.STATE else f"[Turn {state.next_turn}] "
    lines = [
        f"{turn}Location: {place.room or 'Unknown'} | "
        f"Score: {summary.score} | Moves: {summary.moves}",
        f"Inventory: {view.inventory}",
        f"Current objective: {state.objective or 'none yet'}",
    ]
    if policy.mode is HistoryMode.STATE:
        lines += recent_actions(state.turns[-STATE_RECENT_ACTIONS:])
    if view.memories:
        lines += ["", view.memories]
    return "\n".join([*lines, "", latest_heading(state, policy), view.latest])


def latest_heading(state: EpisodeState, policy: HistoryPolicy) -> str:
    if policy.mode is HistoryMode.STATE or not state.turns:
        return "Latest game text:"
    return f"Latest game text (after turn {state.turn}):"


def recent_actions(turns: Sequence[PlayedTurn]) -> list[str]:
    """The view before history: each action with its answer cut to 80 characters."""
    if not turns:
        return []
    shown = [
        f"  > {turn.command} -> {' '.join(turn.answer.split())[:STATE_ANSWER_CHARS]}"
        for turn in turns
    ]
    return ["Recent actions:", *shown]
