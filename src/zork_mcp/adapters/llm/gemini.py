"""The LLM port over Gemini's generateContent.

Tools become functionDeclarations with schemas reduced to Gemini's subset, tool calls
`functionCall` parts of a `model` turn, tool results `functionResponse` parts of the next
`user` turn. The forced final answer uses responseMimeType JSON with a responseSchema. The
key travels in the x-goog-api-key header, never in the URL.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from typing import Any, assert_never

import httpx

from zork_mcp.adapters.llm.endpoint import JsonEndpoint, RetryPolicy
from zork_mcp.adapters.llm.messages import arguments_object, call_names, merge_turns
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
    SystemMessage,
    ToolCall,
    ToolChoice,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from zork_mcp.domain.tools.schema_dialects import gemini_schema
from zork_mcp.domain.tools.tool_schema import ToolDefinition
from zork_mcp.domain.tools.wire_names import GEMINI_RULE, WireNameMap, WireNameRule

SIGNATURE = "thoughtSignature"
# A candidate's finishReason (API reference, GenerateContentResponse.FinishReason).
FINISH_REASONS = {
    "STOP": FinishReason.STOP,
    "MAX_TOKENS": FinishReason.LENGTH,
    "SAFETY": FinishReason.CONTENT_FILTER,
    "RECITATION": FinishReason.CONTENT_FILTER,
    "BLOCKLIST": FinishReason.CONTENT_FILTER,
    "PROHIBITED_CONTENT": FinishReason.CONTENT_FILTER,
    "SPII": FinishReason.CONTENT_FILTER,
    "MALFORMED_FUNCTION_CALL": FinishReason.ERROR,
    "UNEXPECTED_TOOL_CALL": FinishReason.ERROR,
}
TOOL_CHOICES = {ToolChoice.AUTO: "AUTO", ToolChoice.NONE: "NONE", ToolChoice.REQUIRED: "ANY"}


class GeminiLLM(WireLLM):
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        model: str,
        api_key: str,
        base_url: str,
        retry: RetryPolicy | None = None,
        wire_names: WireNameRule = GEMINI_RULE,
    ) -> None:
        self._ids = itertools.count(1)
        headers = {"x-goog-api-key": api_key, "Content-Type": "application/json"}
        url = f"{base_url.rstrip('/')}/v1beta/models/{model}:generateContent"
        endpoint = JsonEndpoint("gemini", url, headers, (api_key,))
        super().__init__(client, model, endpoint, retry, wire_names)

    def request_body(self, request: LLMRequest, names: WireNameMap) -> dict[str, Any]:
        called = call_names(request.messages)
        system = [
            {"text": m.text}
            for m in request.messages
            if isinstance(m, SystemMessage) and m.text  # an empty text part is refused
        ]
        turns = merge_turns(
            [_turn(m, names, called) for m in request.messages if not isinstance(m, SystemMessage)]
        )
        body: dict[str, Any] = {"contents": [{"role": r, "parts": p} for r, p in turns]}
        if system:
            body["systemInstruction"] = {"parts": system}
        if request.tools:
            declarations = [_declaration(tool, names) for tool in request.tools]
            body["tools"] = [{"functionDeclarations": declarations}]
            mode = TOOL_CHOICES[request.tool_choice or ToolChoice.AUTO]
            body["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
        if request.response_format is not None:
            body["generationConfig"] = {
                "responseMimeType": "application/json",
                "responseSchema": gemini_schema(request.response_format.schema),
            }
        return body

    def parse(
        self, data: Mapping[str, Any], names: WireNameMap, request: LLMRequest
    ) -> LLMResponse:
        candidates = data.get("candidates") or []
        if not candidates:
            reason = (data.get("promptFeedback") or {}).get("blockReason", "no candidates")
            raise LLMError(f"gemini returned no answer: {reason}", provider="gemini")
        candidate = candidates[0]
        parts = (candidate.get("content") or {}).get("parts") or []
        text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought")) or None
        calls = [self._call(p, names) for p in parts if "functionCall" in p]
        said = candidate.get("finishReason")
        word = None if said is None else str(said)
        return LLMResponse.of(
            text,
            calls,
            model=str(data.get("modelVersion") or self._model),
            usage=_usage(data.get("usageMetadata")),
            finish_reason=FinishReason.TOOL_CALLS if calls else FINISH_REASONS.get(str(word)),
            provider_reason=word,
        )

    def _call(self, part: Mapping[str, Any], names: WireNameMap) -> ToolCall:
        call = part["functionCall"]
        wire = str(call.get("name") or "")
        call_id = str(call.get("id") or f"gemini_call_{next(self._ids)}")
        arguments = json.dumps(call.get("args") or {})
        signature = part.get("thoughtSignature")
        return ToolCall(
            call_id,
            FunctionCall(names.to_canonical(wire) or wire, arguments),
            provider_data={SIGNATURE: signature} if isinstance(signature, str) else None,
        )


def _turn(message: Message, names: WireNameMap, called: Mapping[str, str]) -> tuple[str, list]:
    match message:
        case ToolResultMessage(tool_call_id, result):
            name = names.to_wire(called[tool_call_id])
            response = {"name": name, "id": tool_call_id, "response": result.to_dict()}
            return "user", [{"functionResponse": response}]
        case AssistantToolCalls(calls, preamble):
            parts = [{"text": preamble}] if preamble else []
            return "model", parts + [_call_part(call, names) for call in calls]
        case AssistantText(text):
            return "model", [{"text": text}] if text else []
        case UserMessage(text):
            return "user", [{"text": text}]
        case SystemMessage():
            raise ValueError("a system message is sent as the systemInstruction, not a turn")
        case _:
            assert_never(message)


def _call_part(call: ToolCall, names: WireNameMap) -> dict[str, Any]:
    """A functionCall part, with the thoughtSignature it came with (Gemini 3 requires it)."""
    part: dict[str, Any] = {
        "functionCall": {
            "name": names.to_wire(call.function.name),
            "id": call.id,
            "args": arguments_object(call.function.arguments),
        }
    }
    signature = (call.provider_data or {}).get(SIGNATURE)
    if signature:
        part[SIGNATURE] = signature
    return part


def _declaration(definition: ToolDefinition, names: WireNameMap) -> dict[str, Any]:
    """A tool without parameters has none: Gemini rejects an OBJECT with empty properties."""
    declaration = {
        "name": names.to_wire(definition.name),
        "description": definition.description,
    }
    parameters = gemini_schema(definition.parameters or {"type": "object"})
    if parameters.get("properties"):
        declaration["parameters"] = parameters
    return declaration


def _usage(usage: Mapping[str, Any] | None) -> Usage | None:
    if not usage:
        return None
    thoughts = int(usage.get("thoughtsTokenCount") or 0)  # billed as output
    return Usage(
        int(usage.get("promptTokenCount") or 0),
        int(usage.get("candidatesTokenCount") or 0) + thoughts,
        int(usage.get("cachedContentTokenCount") or 0),
        reasoning_tokens=thoughts,
    )
