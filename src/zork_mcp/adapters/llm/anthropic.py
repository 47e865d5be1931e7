"""The LLM port over Anthropic's Messages API.

System messages go to the `system` parameter, tool calls become `tool_use` blocks and tool
results `tool_result` blocks in the next user turn, cache_control is native (on the text
blocks of the request's cache breakpoints). There is no response_format: the forced final
answer is a forced call of an `AgentResponse` tool whose input schema is the answer's
schema, and its input is returned as the answer's content.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, assert_never

import httpx

from zork_mcp.adapters.llm.endpoint import JsonEndpoint, RetryPolicy
from zork_mcp.adapters.llm.messages import (
    arguments_object,
    call_names,
    limit_cache_markers,
    merge_turns,
    text_block,
)
from zork_mcp.adapters.llm.wire import WireLLM
from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    CachePolicy,
    FinishReason,
    FunctionCall,
    LLMRequest,
    LLMResponse,
    Message,
    SystemMessage,
    ToolCall,
    ToolChoice,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from zork_mcp.domain.tools.tool_schema import ToolDefinition
from zork_mcp.domain.tools.wire_names import ANTHROPIC_RULE, WireNameMap, WireNameRule

API_VERSION = "2023-06-01"
MAX_BREAKPOINTS = 4  # blocks with cache_control per request (prompt-caching docs)
# stop_reason (API reference, Messages); `pause_turn` (a server tool's long turn paused) is
# a stop for a caller that runs no server tools.
STOP_REASONS = {
    "end_turn": FinishReason.STOP,
    "tool_use": FinishReason.TOOL_CALLS,
    "max_tokens": FinishReason.LENGTH,
    "stop_sequence": FinishReason.STOP,
    "pause_turn": FinishReason.STOP,
    "refusal": FinishReason.CONTENT_FILTER,
    "model_context_window_exceeded": FinishReason.LENGTH,
}
TOOL_CHOICES = {ToolChoice.AUTO: "auto", ToolChoice.NONE: "none", ToolChoice.REQUIRED: "any"}


class AnthropicLLM(WireLLM):
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        model: str,
        api_key: str,
        base_url: str,
        max_tokens: int = 1024,
        retry: RetryPolicy | None = None,
        wire_names: WireNameRule = ANTHROPIC_RULE,
    ) -> None:
        self._max_tokens = max_tokens
        headers = {
            "x-api-key": api_key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }
        url = f"{base_url.rstrip('/')}/v1/messages"
        endpoint = JsonEndpoint("anthropic", url, headers, (api_key,))
        super().__init__(client, model, endpoint, retry, wire_names)

    def parse(
        self, data: Mapping[str, Any], names: WireNameMap, request: LLMRequest
    ) -> LLMResponse:
        return parse_message(data, names, forced=request.response_format is not None)

    def request_body(self, request: LLMRequest, names: WireNameMap) -> dict[str, Any]:
        cache = request.cache
        system = [
            text_block(m.text, marked=cache.marks(m))
            for m in request.messages
            if isinstance(m, SystemMessage) and m.text
        ]
        turns = merge_turns(
            [_turn(m, names, cache) for m in request.messages if not isinstance(m, SystemMessage)]
        )
        body: dict[str, Any] = {
            "model": self._model,
            "max_tokens": self._max_tokens,
            "messages": [{"role": role, "content": blocks} for role, blocks in turns],
        }
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = [_tool(tool, names) for tool in request.tools]
            body["tool_choice"] = {"type": TOOL_CHOICES[request.tool_choice or ToolChoice.AUTO]}
        elif request.response_format is None and _holds_tool_blocks(turns):
            # Anthropic refuses tool_use/tool_result blocks in a request without tools; the
            # tools the history used are declared again, and not to be called.
            used = dict.fromkeys(call_names(request.messages).values())
            body["tools"] = [_declared_only(names.to_wire(name)) for name in used]
            body["tool_choice"] = {"type": TOOL_CHOICES[ToolChoice.NONE]}
        if request.response_format is not None:
            answer = request.response_format
            body["tools"] = [
                {
                    "name": answer.name,
                    "description": "Give your final answer.",
                    "input_schema": dict(answer.schema),
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": answer.name}
        limit_cache_markers([*system, *(b for _, blocks in turns for b in blocks)], MAX_BREAKPOINTS)
        return body


def parse_message(data: Mapping[str, Any], names: WireNameMap, *, forced: bool) -> LLMResponse:
    blocks = data.get("content") or []
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text") or None
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    usage = _usage(data.get("usage"))
    model = str(data.get("model") or "")
    said = data.get("stop_reason")
    word = None if said is None else str(said)
    if forced and uses:
        answer = json.dumps(uses[0].get("input") or {})
        return LLMResponse(
            answer, model, usage, finish_reason=FinishReason.STOP, provider_reason=word
        )
    calls = [
        ToolCall(
            str(b.get("id")), FunctionCall(_canonical(b, names), json.dumps(b.get("input") or {}))
        )
        for b in uses
    ]
    reason = STOP_REASONS.get(str(word))
    return LLMResponse.of(
        text, calls, model=model, usage=usage, finish_reason=reason, provider_reason=word
    )


def _holds_tool_blocks(turns: list[tuple[str, list[dict[str, Any]]]]) -> bool:
    return any(b["type"] in ("tool_use", "tool_result") for _, blocks in turns for b in blocks)


def _declared_only(wire_name: str) -> dict[str, Any]:
    return {
        "name": wire_name,
        "description": "A tool used earlier in this conversation; not available now.",
        "input_schema": {"type": "object"},
    }


def _canonical(block: Mapping[str, Any], names: WireNameMap) -> str:
    wire = str(block.get("name") or "")
    return names.to_canonical(wire) or wire


def _turn(
    message: Message, names: WireNameMap, cache: CachePolicy
) -> tuple[str, list[dict[str, Any]]]:
    match message:
        case ToolResultMessage(tool_call_id, result):
            block = {
                "type": "tool_result",
                "tool_use_id": tool_call_id,
                "content": result.to_json(),
                "is_error": result.is_error,
            }
            return "user", [block]
        case AssistantToolCalls(calls, preamble):
            return "assistant", _said(preamble) + [_tool_use(call, names) for call in calls]
        case AssistantText(text):
            return "assistant", _said(text)
        case UserMessage(text):
            return "user", [text_block(text, marked=cache.marks(message))]
        case SystemMessage():
            raise ValueError("a system message is sent as the `system` parameter, not a turn")
        case _:
            assert_never(message)


def _said(text: str | None) -> list[dict[str, Any]]:
    """Anthropic refuses a message whose only text is whitespace (a model's "\n" beside its
    tool calls, sent back); such text says nothing, so it stays out."""
    return [{"type": "text", "text": text}] if text and text.strip() else []


def _tool_use(call: ToolCall, names: WireNameMap) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call.id,
        "name": names.to_wire(call.function.name),
        "input": arguments_object(call.function.arguments),
    }


def _tool(definition: ToolDefinition, names: WireNameMap) -> dict[str, Any]:
    return {
        "name": names.to_wire(definition.name),
        "description": definition.description,
        "input_schema": dict(definition.parameters or {"type": "object"}),
    }


def _usage(usage: Mapping[str, Any] | None) -> Usage | None:
    if not usage:
        return None
    cached = int(usage.get("cache_read_input_tokens") or 0)
    written = int(usage.get("cache_creation_input_tokens") or 0)
    prompt = int(usage.get("input_tokens") or 0) + cached + written
    return Usage(prompt, int(usage.get("output_tokens") or 0), cached, cache_write_tokens=written)
