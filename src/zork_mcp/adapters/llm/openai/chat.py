"""The LLM port over the OpenAI chat-completions protocol: OpenRouter, OpenAI, and any local
server that speaks it (llama.cpp's server, Ollama, vLLM) by base URL.

Canonical `server.tool` names become provider-safe wire names in `tools` and in the
history's tool calls, and are mapped back in the answer. `cache_control` rides on a text
part of the request's cache breakpoints where the provider honours it (OpenRouter) and is
left out where the provider caches prefixes by itself (OpenAI, local servers).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, assert_never

import httpx

from zork_mcp.adapters.llm.endpoint import JsonEndpoint, RetryPolicy
from zork_mcp.adapters.llm.messages import limit_cache_markers, text_block
from zork_mcp.adapters.llm.wire import WireLLM
from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    FinishReason,
    FunctionCall,
    LLMRequest,
    LLMResponse,
    Message,
    ResponseFormat,
    SystemMessage,
    ToolCall,
    ToolChoice,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from zork_mcp.domain.tools.tool_schema import ToolDefinition
from zork_mcp.domain.tools.wire_names import OPENAI_RULE, WireNameMap, WireNameRule


@dataclass(frozen=True)
class OpenAIFlavor:
    """How one OpenAI-compatible service differs from the others."""

    name: str  # as errors name the provider
    cache_markers: bool  # send cache_control: the service passes it on to a model that honours it


# OpenRouter passes cache_control to Anthropic, which takes at most 4 (prompt-caching docs).
MAX_CACHE_BREAKPOINTS = 4
TOOL_CHOICES = {ToolChoice.AUTO: "auto", ToolChoice.NONE: "none", ToolChoice.REQUIRED: "required"}
# OpenAI's finish reasons (`function_call`: the deprecated functions' call); OpenRouter
# normalises every model's to these and `error` (openrouter.ai/docs/api-reference/overview).
FINISH_REASONS = {
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
    "error": FinishReason.ERROR,
}


class OpenAICompatibleLLM(WireLLM):
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        model: str,
        api_key: str | None = None,
        flavor: OpenAIFlavor,
        base_url: str,
        retry: RetryPolicy | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        wire_names: WireNameRule = OPENAI_RULE,
        tools_reasoning_effort: str | None = None,
    ) -> None:
        """`tools_reasoning_effort`: sent with tools, for models that take tools in chat
        completions only at that effort (the registry says which)."""
        self._flavor, self._tools_effort = flavor, tools_reasoning_effort
        self._options = {"max_tokens": max_tokens, "temperature": temperature}
        url = f"{base_url.rstrip('/')}/chat/completions"
        endpoint = JsonEndpoint.bearer(flavor.name, url, api_key)
        super().__init__(client, model, endpoint, retry, wire_names)

    def parse(
        self, data: Mapping[str, Any], names: WireNameMap, request: LLMRequest
    ) -> LLMResponse:
        return parse_completion(data, names, self._flavor.name)

    def request_body(self, request: LLMRequest, names: WireNameMap) -> dict[str, Any]:
        messages = [self._wire_message(m, names, request.cache.marks(m)) for m in request.messages]
        parts = [p for m in messages if isinstance(m.get("content"), list) for p in m["content"]]
        limit_cache_markers(parts, MAX_CACHE_BREAKPOINTS)
        body: dict[str, Any] = {"model": self._model, "messages": messages}
        if request.tools:
            body["tools"] = [_wire_tool(tool, names) for tool in request.tools]
            body["tool_choice"] = TOOL_CHOICES[request.tool_choice or ToolChoice.AUTO]
            if self._tools_effort is not None:
                body["reasoning_effort"] = self._tools_effort
        if request.response_format is not None:
            body["response_format"] = json_schema_format(request.response_format)
        body.update({key: value for key, value in self._options.items() if value is not None})
        return body

    def _wire_message(self, message: Message, names: WireNameMap, marked: bool) -> dict[str, Any]:
        match message:
            case SystemMessage(text):
                return self._prompt("system", text, marked)
            case UserMessage(text):
                return self._prompt("user", text, marked)
            case AssistantText(text):
                return {"role": "assistant", "content": text}
            case AssistantToolCalls(calls, preamble):
                wire_calls = [_wire_call(call, names) for call in calls]
                return {"role": "assistant", "content": preamble, "tool_calls": wire_calls}
            case ToolResultMessage(tool_call_id, result):
                return {"role": "tool", "tool_call_id": tool_call_id, "content": result.to_json()}
            case _:
                assert_never(message)

    def _prompt(self, role: str, text: str, marked: bool) -> dict[str, Any]:
        """A breakpoint's text becomes a part carrying cache_control, where it is sent."""
        if marked and self._flavor.cache_markers:
            return {"role": role, "content": [text_block(text, marked=True)]}
        return {"role": role, "content": text}


def json_schema_format(response_format: ResponseFormat) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {
            "name": response_format.name,
            "strict": True,
            "schema": dict(response_format.schema),
        },
    }


def parse_completion(
    data: Mapping[str, Any],
    names: WireNameMap,
    provider: str,
    new_id: Callable[[], str] = lambda: f"call_{uuid.uuid4().hex[:24]}",
) -> LLMResponse:
    """The answer in domain terms; a tool call without an id gets a fresh one from `new_id`
    (some local servers send none, and the history needs every call told apart)."""
    choices = data.get("choices") or []
    if not choices:
        raise LLMError(f"{provider} answered without choices", provider=provider)
    choice = choices[0]
    message = choice.get("message") or {}
    calls = [_domain_call(call, names, new_id) for call in message.get("tool_calls") or []]
    reason = choice.get("finish_reason")
    return LLMResponse.of(
        _text_of(message.get("content")),
        calls,
        model=str(data.get("model") or ""),
        usage=parse_usage(data.get("usage")),
        finish_reason=FINISH_REASONS.get(str(reason)),
        provider_reason=None if reason is None else str(reason),
    )


def parse_usage(usage: Mapping[str, Any] | None) -> Usage | None:
    if not usage:
        return None
    details = usage.get("prompt_tokens_details") or {}
    cost = usage.get("cost")  # OpenRouter's usage accounting, in USD (credits)
    return Usage(
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
        int(details.get("cached_tokens") or 0),
        float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
    )


def _wire_tool(tool: ToolDefinition, names: WireNameMap) -> dict[str, Any]:
    function = {
        "name": names.to_wire(tool.name),
        "description": tool.description,
        "parameters": dict(tool.parameters),
    }
    return {"type": "function", "function": function}


def _wire_call(call: ToolCall, names: WireNameMap) -> dict[str, Any]:
    """Only the fields OpenAI accepts; another provider's data stays out."""
    function = {"name": names.to_wire(call.function.name), "arguments": call.function.arguments}
    return {"id": call.id, "type": call.type, "function": function}


def _domain_call(
    call: Mapping[str, Any], names: WireNameMap, new_id: Callable[[], str]
) -> ToolCall:
    function = call.get("function") or {}
    wire = str(function.get("name") or "")
    arguments = function.get("arguments")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    canonical = names.to_canonical(wire) or wire  # an unknown name reaches the loop as is
    call_id = call.get("id")
    return ToolCall(str(call_id) if call_id else new_id(), FunctionCall(canonical, text))


def _text_of(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)
