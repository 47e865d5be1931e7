"""The LLM exchange: requests, responses, tool calls, and the messages of a conversation.

A conversation is a sequence of typed messages carrying canonical tool names; a request
offers typed tool definitions with a tool choice, and an answer says why it stopped in a
FinishReason. Each LLM adapter renders them into its provider's wire format and reads its
provider's answers back; `to_openai_dict` is the one place messages become OpenAI-format dicts
(MCP-Ghost's result, traces). Which messages are prompt-cache breakpoints is a request's
`CachePolicy`, not a key of each message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar, assert_never

from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolDefinition

FINAL_ACTION_PROMPT = "Please provide your final action now without calling any more tools."


@dataclass(frozen=True)
class FunctionCall:
    name: str  # canonical `server.tool` name
    arguments: str  # JSON text, as the provider sent it


@dataclass(frozen=True)
class ToolCall:
    id: str
    function: FunctionCall
    type: str = "function"
    # What the provider needs back with this call in later requests and no one else reads
    # (Gemini's thoughtSignature); it rides in the history's tool call as `provider_data`.
    provider_data: Mapping[str, Any] | None = field(default=None, hash=False)


@dataclass
class RetryStats:
    """What one episode's LLM calls met: 429 answers, and retries of any kind."""

    rate_limited: int = 0
    retries: int = 0


@dataclass(frozen=True)
class CostParts:
    """What calls cost in USD, part by part, as the price list gives it: input not read from
    the cache, input read from it, input written to it (Anthropic's cache writes), output."""

    input: float = 0.0
    cached_input: float = 0.0
    cache_write: float = 0.0
    output: float = 0.0

    @property
    def total(self) -> float:
        return self.input + self.cached_input + self.cache_write + self.output

    def __add__(self, other: CostParts) -> CostParts:
        return CostParts(
            self.input + other.input,
            self.cached_input + other.cached_input,
            self.cache_write + other.cache_write,
            self.output + other.output,
        )


@dataclass(frozen=True)
class Usage:
    """Token counts of one or more LLM calls, and what they cost: `cost_usd` in USD (the
    provider's own report where it gives one, else the price list's), `cost_parts` its parts
    where the price list knows them, and `unpriced`, why a call has no cost (never 0).
    `prompt_tokens` counts every input token, cached and cache-written ones included."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None  # None: no cost known (`unpriced` says why)
    reasoning_tokens: int = 0  # of the completion tokens, those a reasoning model thought in
    cache_write_tokens: int = 0  # of the prompt tokens, those written to the cache
    cost_parts: CostParts | None = None
    unpriced: str | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            _add_known(self.cost_usd, other.cost_usd),
            self.reasoning_tokens + other.reasoning_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            _add_known(self.cost_parts, other.cost_parts),
            self.unpriced or other.unpriced,
        )


T = TypeVar("T", float, CostParts)


def _add_known(first: T | None, second: T | None) -> T | None:
    if first is None:
        return second
    return first if second is None else first + second


@dataclass(frozen=True)
class ResponseFormat:
    """A JSON schema the final answer must follow (requirement 5.9)."""

    name: str
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class SystemMessage:
    text: str


@dataclass(frozen=True)
class UserMessage:
    text: str


@dataclass(frozen=True)
class ContextSummary(UserMessage):
    """Older steps condensed into one user message to fit the context budget; it stands in
    for them in one request and is never part of the history."""


@dataclass(frozen=True)
class AssistantText:
    text: str


@dataclass(frozen=True)
class AssistantToolCalls:
    """The LLM's tool calls, with the text it sent beside them (`preamble`)."""

    calls: tuple[ToolCall, ...]
    preamble: str | None = None

    def __post_init__(self) -> None:
        if not self.calls:
            raise ValueError("an AssistantToolCalls message needs at least one call")


@dataclass(frozen=True)
class ToolResultMessage:
    """A tool's result answering one call; the provider gets `result.to_json()` (11.5)."""

    tool_call_id: str
    result: ToolCallResult


Message = SystemMessage | UserMessage | AssistantText | AssistantToolCalls | ToolResultMessage


@dataclass(frozen=True)
class CachePolicy:
    """Which messages of a request are prompt-cache breakpoints: by default every system and
    user message (requirement 4.7, property 15). An adapter whose provider takes fewer keeps
    the first and the latest. A ContextSummary is not one: it is rewritten for every request,
    so a breakpoint on it would pay for a cache write no later request reads."""

    kinds: tuple[type[SystemMessage | UserMessage], ...] = (SystemMessage, UserMessage)

    def marks(self, message: Message) -> bool:
        return type(message) in self.kinds  # the exact type: a ContextSummary is a UserMessage


class ToolChoice(StrEnum):
    """Whether the LLM may call the offered tools: as it sees fit, not at all, or at least one.
    A request with tools and no choice leaves it to the LLM (AUTO)."""

    AUTO = "auto"
    NONE = "none"
    REQUIRED = "required"


class FinishReason(StrEnum):
    """Why the LLM stopped, in the domain's words; each adapter maps its provider's to these."""

    STOP = "stop"  # a natural end, or a stop sequence
    LENGTH = "length"  # the output token limit
    TOOL_CALLS = "tool_calls"
    CONTENT_FILTER = "content_filter"  # a safety, recitation or refusal filter
    ERROR = "error"  # the provider's own failure (a malformed call, an unexpected tool)


@dataclass(frozen=True)
class LLMRequest:
    """One call to an LLM. Tools and a response format are never sent together (4.6)."""

    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] | None = None
    tool_choice: ToolChoice | None = None
    response_format: ResponseFormat | None = None
    cache: CachePolicy = field(default_factory=CachePolicy)

    def __post_init__(self) -> None:
        if self.tools and self.response_format is not None:
            raise ValueError("response_format is only for calls without tools (requirement 4.6)")
        if self.tool_choice is not None and not self.tools:
            raise ValueError("tool_choice needs tools")
        if not all(isinstance(tool, ToolDefinition) for tool in self.tools or ()):
            raise TypeError("a request offers ToolDefinitions (tool_definitions(specs)), not dicts")
        if self.tool_choice is not None and not isinstance(self.tool_choice, ToolChoice):
            raise TypeError(f"tool_choice is a ToolChoice, not {self.tool_choice!r}")


@dataclass(frozen=True)
class LLMResponse:
    """An LLM's answer: content or tool calls, never both (requirements 4.3, 4.4).
    `finish_reason` is why it stopped (None: the provider said nothing the domain has a word
    for); `provider_reason`, the provider's own word for it, as it said it, for reports."""

    content: str | None
    model: str = ""
    usage: Usage | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    finish_reason: FinishReason | None = None
    preamble: str | None = field(default=None)  # text a provider sent beside its tool calls
    provider_reason: str | None = None

    def __post_init__(self) -> None:
        if self.tool_calls is not None and not self.tool_calls:
            raise ValueError("tool_calls must be None or non-empty")
        if self.tool_calls and self.content is not None:
            raise ValueError("a response with tool_calls has content None (requirement 4.3)")
        if self.finish_reason is not None and not isinstance(self.finish_reason, FinishReason):
            raise TypeError(f"finish_reason is a FinishReason, not {self.finish_reason!r}")

    @classmethod
    def of(
        cls,
        content: str | None,
        tool_calls: Sequence[ToolCall] | None = None,
        **rest: Any,
    ) -> LLMResponse:
        """Normalise raw provider parts: tool calls win; their text becomes the preamble."""
        if tool_calls:
            return cls(None, tool_calls=tuple(tool_calls), preamble=content or None, **rest)
        return cls(content, **rest)


def system_message(text: str) -> SystemMessage:
    return SystemMessage(text)


def user_message(text: str) -> UserMessage:
    return UserMessage(text)


def initial_messages(
    system_prompt: str, game_state_text: str, relevant_memories: str | None = None
) -> list[Message]:
    user_text = (
        f"{game_state_text}\n\n{relevant_memories}" if relevant_memories else game_state_text
    )
    return [system_message(system_prompt), user_message(user_text)]


def assistant_tool_calls_message(response: LLMResponse) -> AssistantToolCalls:
    return AssistantToolCalls(response.tool_calls or (), response.preamble)


def assistant_content_message(content: str) -> AssistantText:
    return AssistantText(content)


def tool_message(tool_call_id: str, result: ToolCallResult) -> ToolResultMessage:
    """A tool result in history; the adapters send it JSON-serialised (requirement 11.5)."""
    return ToolResultMessage(tool_call_id, result)


def to_openai_dict(message: Message) -> dict[str, Any]:
    """The message as an OpenAI chat-format dict with canonical tool names: what MCP-Ghost's
    `conversation_history` holds (spec 004), what traces show, what the context budget weighs."""
    match message:
        case SystemMessage(text):
            return {"role": "system", "content": text}
        case UserMessage(text):
            return {"role": "user", "content": text}
        case AssistantText(text):
            return {"role": "assistant", "content": text}
        case AssistantToolCalls(calls, preamble):
            return {
                "role": "assistant",
                "content": preamble,
                "tool_calls": [_openai_call(call) for call in calls],
            }
        case ToolResultMessage(tool_call_id, result):
            return {"role": "tool", "tool_call_id": tool_call_id, "content": result.to_json()}
        case _:
            assert_never(message)


def _openai_call(call: ToolCall) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": call.id,
        "type": call.type,
        "function": {"name": call.function.name, "arguments": call.function.arguments},
    }
    if call.provider_data:
        entry["provider_data"] = dict(call.provider_data)
    return entry
