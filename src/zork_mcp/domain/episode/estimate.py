"""What an episode's prompts will weigh, before any is sent: each turn's first request as the
history policy lays it out (the real `turn_messages`, over a stand-in game whose answers are
as long as Zork I's average) with the tools it offers, in tokens as the budget guard measures
the same request (`request_tokens`), and how much of it the turn before shared (what a
provider's prompt cache can serve). `benchmarks/prompt_size.py` measures the same quantities
on a played game; the two agree within 10% (a test holds them).

Assumed, and said wherever an estimate is shown: one LLM call a turn (each tool call adds
one, about as large) and `OUTPUT_TOKENS` out per call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from zork_mcp.domain.episode.episode import EpisodeSummary
from zork_mcp.domain.episode.episode_state import EpisodeState, Place, PlayedTurn
from zork_mcp.domain.episode.history import HistoryPolicy, TurnView, turn_messages
from zork_mcp.domain.llm.budget import OUTPUT_TOKENS
from zork_mcp.domain.llm.messages import LLMRequest, ResponseFormat, ToolChoice
from zork_mcp.domain.llm.tokens import request_parts, tokens_in
from zork_mcp.domain.tools.tool_schema import ToolDefinition

ROOMS = 12  # stand-in rooms the stand-in game cycles through
INVENTORY = "A brass lantern (providing light)\nA nasty knife\nA leaflet"


@dataclass(frozen=True)
class TurnPrompt:
    """One turn's first request: its tokens, and those it shares with the turn before's."""

    tokens: int
    shared: int


@dataclass(frozen=True)
class EpisodeEstimate:
    """An episode's expected LLM calls: one a turn, each prompt as laid out, `OUTPUT_TOKENS`
    out each."""

    prompts: tuple[TurnPrompt, ...]
    output_per_call: int = OUTPUT_TOKENS

    @property
    def input_tokens(self) -> int:
        return sum(p.tokens for p in self.prompts)

    @property
    def output_tokens(self) -> int:
        return self.output_per_call * len(self.prompts)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def turns(self, first: int, last: int) -> EpisodeEstimate:
        """Turns `first` to `last` (1-based, inclusive): what is left of an episode."""
        return EpisodeEstimate(self.prompts[first - 1 : last], self.output_per_call)


def estimate_episode(requests: Iterable[LLMRequest]) -> EpisodeEstimate:
    """An episode of these first requests (`episode_requests`), each measured as the budget
    guard measures it, with what it shares with the one before."""
    prompts, before = [], ""
    for request in requests:
        text = "".join(request_parts(request))  # its length is `request_tokens(request)`'s
        prompts.append(TurnPrompt(tokens_in(len(text)), tokens_in(_shared(before, text))))
        before = text
    return EpisodeEstimate(tuple(prompts))


def episode_requests(
    system_prompt: str,
    tools: Sequence[ToolDefinition],
    policy: HistoryPolicy,
    turns: int,
    answer_chars: int,
    answer_format: ResponseFormat | None = None,
) -> Iterator[LLMRequest]:
    """Each turn's first request, as the agent's tool loop sends it: the tools with the LLM's
    choice of them, or with no tools the answer's format."""
    state = EpisodeState(EpisodeSummary("estimate"), Place(_room(0)), _answer(0, answer_chars))
    offered = tuple(tools) or None
    choice = ToolChoice.AUTO if offered else None
    answer = None if offered else answer_format
    for turn in range(1, turns + 1):
        view = TurnView(state.answer_before(len(state.turns)), INVENTORY)
        messages = tuple(turn_messages(system_prompt, state, view, policy))
        yield LLMRequest(messages, tools=offered, tool_choice=choice, response_format=answer)
        answer_text = _answer(turn, answer_chars)
        state.played(PlayedTurn(turn, "go north", answer_text, Place(_room(turn), turn % ROOMS)))


def _room(turn: int) -> str:
    return f"Room {turn % ROOMS}"


def _answer(turn: int, chars: int) -> str:
    """A stand-in answer: a room's name and prose, different every turn."""
    head = f"{_room(turn)}\nTurn {turn}: "
    prose = "You are in a room of the great underground empire. Passages lead away. " * 8
    return (head + prose)[:chars]


def _shared(a: str, b: str) -> int:
    """The characters `a` and `b` share from the start (binary search on slices)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
