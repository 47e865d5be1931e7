"""What a trace says, whichever backend gets it: the run it belongs to, names, levels, GenAI keys.

The domain opens a turn's span, an LLM call's and a tool call's with typed facts
(zork_mcp.domain.facts.span_facts); this module maps them, by type, once for the Langfuse and the
OpenTelemetry adapters (the OpenTelemetry GenAI semantic conventions,
https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zork_mcp.domain.facts.events import EventType, Level
from zork_mcp.domain.facts.span_facts import (
    LLMAnswered,
    LLMCalled,
    SpanFacts,
    ToolAnswered,
    ToolCalled,
    TurnOpened,
)
from zork_mcp.domain.llm.messages import Message, Usage, to_openai_dict
from zork_mcp.domain.llm.model import ResolvedModel

EPISODE_EVENTS = (EventType.EPISODE_START, EventType.EPISODE_END)
TOOL_OUTCOME_LEVELS = {
    "timed_out": Level.WARNING,
    "tool_error": Level.ERROR,
    "session_broken": Level.ERROR,
}


@dataclass(frozen=True)
class RunIdentity:
    """Whose traces these are: one episode (a session) or one MCP-Ghost call."""

    resolved: ResolvedModel
    session_id: str | None = None
    mcp_config: str | None = None
    seed: int | None = None
    name: str = "zork-episode"

    def tags(self) -> list[str]:
        tags = [f"provider:{self.provider}", f"model:{self.model}"]
        return [*tags, f"mcp:{self.mcp_config}"] if self.mcp_config else tags

    def metadata(self) -> dict[str, str]:
        values = {
            "provider": self.provider,
            "model": self.model,
            "mcp_config": self.mcp_config,
            "seed": self.seed,
        }
        return {key: str(value) for key, value in values.items() if value is not None}

    def trace_name(self, span_name: str, facts: SpanFacts | None) -> str:
        if self.session_id is None:
            return self.name
        if isinstance(facts, TurnOpened):
            return f"episode {self.session_id} turn {facts.turn}"
        return f"episode {self.session_id} {span_name}"

    @property
    def provider(self) -> str:
        return self.resolved.provider

    @property
    def model(self) -> str:
        return self.resolved.name

    @property
    def provider_name(self) -> str:
        """The provider as OpenTelemetry's convention names it (its well-known values)."""
        return self.resolved.profile.telemetry_name


@dataclass(frozen=True)
class Status:
    level: Level
    message: str


def tool_status(facts: SpanFacts | None, output: Any) -> Status | None:
    """ERROR for a failed tool call, WARNING for a timeout, None for a success (or for
    what is not a tool call's outcome)."""
    if not isinstance(facts, ToolAnswered):
        return None
    level = TOOL_OUTCOME_LEVELS.get(facts.outcome)
    if level is None:
        return None
    error = output.get("error") if isinstance(output, Mapping) else None
    return Status(level, str(error or f"tool call {facts.outcome}"))


def model_parameters(facts: LLMCalled) -> dict[str, str | int | bool]:
    """The request settings of one LLM call that change what it can answer."""
    choice = facts.tool_choice
    settings = {
        "tools": facts.tools,
        "tool_choice": None if choice is None else choice.value,
        "forced_final": facts.forced_final,
    }
    return {name: value for name, value in settings.items() if value is not None}


def langfuse_usage(usage: Usage) -> dict[str, int]:
    """Langfuse's usage keys: `input` without the cached and cache-written parts, each
    priced apart."""
    usage_details = {
        "input": max(0, usage.prompt_tokens - usage.cached_tokens - usage.cache_write_tokens),
        "input_cached_tokens": usage.cached_tokens,
        "output": usage.completion_tokens,
    }
    if usage.cache_write_tokens:
        usage_details["input_cache_write_tokens"] = usage.cache_write_tokens
    return usage_details


def langfuse_cost(usage: Usage) -> dict[str, float] | None:
    """Langfuse's cost details: the same keys as the usage's, and the total."""
    if usage.cost_usd is None:
        return None
    parts = usage.cost_parts
    if parts is None:
        return {"total": usage.cost_usd}
    split = {
        "input": parts.input,
        "input_cached_tokens": parts.cached_input,
        "output": parts.output,
        "total": usage.cost_usd,
    }
    if parts.cache_write:
        split["input_cache_write_tokens"] = parts.cache_write
    return split


def genai_start(
    facts: SpanFacts | None, identity: RunIdentity | None
) -> tuple[str, dict[str, Any]]:
    """The OpenTelemetry span name and GenAI attributes known when a span opens."""
    attributes: dict[str, Any] = {}
    if identity is not None:
        attributes["gen_ai.provider.name"] = identity.provider_name
        if identity.session_id is not None:
            attributes["gen_ai.conversation.id"] = identity.session_id
            attributes["session.id"] = identity.session_id
    if isinstance(facts, LLMCalled):
        model = facts.model or (identity.model if identity else None)
        attributes.update({"gen_ai.operation.name": "chat", "gen_ai.request.model": model})
        return (f"chat {model}" if model else "chat"), _present(attributes)
    if isinstance(facts, ToolCalled):
        attributes.update(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": facts.tool_name,
                "gen_ai.tool.call.id": facts.call_id,
                "gen_ai.tool.type": "extension",
                "zork_mcp.mcp.server": facts.server_name,
            }
        )
        return f"execute_tool {facts.tool_name}", _present(attributes)
    agent = identity.name if identity else "zork-agent"
    attributes.update({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent})
    return f"invoke_agent {agent}", _present(attributes)


def genai_usage(usage: Usage) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "gen_ai.usage.input_tokens": usage.prompt_tokens,
        "gen_ai.usage.output_tokens": usage.completion_tokens,
        "gen_ai.usage.cache_read.input_tokens": usage.cached_tokens,
        "gen_ai.usage.cache_creation.input_tokens": usage.cache_write_tokens,
    }
    if usage.cost_usd is not None:
        attributes["gen_ai.usage.cost"] = usage.cost_usd
    return attributes


def genai_result(facts: SpanFacts | None, output: Any) -> dict[str, Any]:
    """GenAI attributes known when a span ends: the model that answered, why it stopped."""
    attributes: dict[str, Any] = {}
    if isinstance(facts, LLMAnswered) and facts.response_model:
        attributes["gen_ai.response.model"] = facts.response_model
    if isinstance(output, Mapping) and output.get("finish_reason"):
        attributes["gen_ai.response.finish_reasons"] = [str(output["finish_reason"])]
    return attributes


def shown_input(value: Any) -> Any:
    """A span's input as a trace shows it: the conversation's messages (an LLM call's, or the
    one a turn shows) as OpenAI-format dicts, which trace viewers render as a chat."""
    if isinstance(value, Message):
        return to_openai_dict(value)
    if isinstance(value, list | tuple) and value and all(isinstance(m, Message) for m in value):
        return [to_openai_dict(m) for m in value]
    return value


def content_keys(facts: SpanFacts | None) -> tuple[str, str] | None:
    """Where a span's input and output go when content capture is on (opt-in by convention)."""
    if isinstance(facts, LLMCalled):
        return "gen_ai.input.messages", "gen_ai.output.messages"
    if isinstance(facts, ToolCalled):
        return "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"
    return None


def _present(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in attributes.items() if value is not None}
