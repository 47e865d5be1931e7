"""The LLM port over OpenAI's Responses API (`POST /v1/responses`), for the OpenAI models that
take function tools only there.

Stateless: `store` is false and no `previous_response_id` is sent, so every request carries
the whole history, which stays ours. The domain's typed history becomes input items:
messages, `function_call` items and the `function_call_output` items answering them by
`call_id`. A reasoning model's reasoning comes back encrypted (`include:
["reasoning.encrypted_content"]`); the output items that came with a call (reasoning, any
text) ride on the first call's `provider_data` and go back in their order, each call by its
`fc_` id, as the API requires when nothing is stored. The forced final answer asks for
`text.format` with the answer's JSON schema.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpx

from zork_mcp.adapters.llm.endpoint import JsonEndpoint, RetryPolicy
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
from zork_mcp.domain.tools.tool_schema import EMPTY_OBJECT_SCHEMA, ToolDefinition
from zork_mcp.domain.tools.wire_names import OPENAI_RULE, WireNameMap, WireNameRule

PROVIDER = "openai"
OUTPUT = "output"  # provider_data key: the response's other output items, in order
CALL_ITEM = "function_call"
ENCRYPTED_REASONING = "reasoning.encrypted_content"
INCOMPLETE_REASONS = {
    "max_output_tokens": FinishReason.LENGTH,
    "content_filter": FinishReason.CONTENT_FILTER,
}
TOOL_CHOICES = {ToolChoice.AUTO: "auto", ToolChoice.NONE: "none", ToolChoice.REQUIRED: "required"}


class OpenAIResponsesLLM(WireLLM):
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str,
        retry: RetryPolicy | None = None,
        reasoning: bool = True,
        max_output_tokens: int | None = None,
        temperature: float | None = None,
        wire_names: WireNameRule = OPENAI_RULE,
    ) -> None:
        """`reasoning`: a reasoning model, whose encrypted reasoning is asked for and sent
        back (the registry says which models are)."""
        self._reasoning = reasoning
        self._options = {"max_output_tokens": max_output_tokens, "temperature": temperature}
        url = f"{base_url.rstrip('/')}/responses"
        endpoint = JsonEndpoint.bearer(PROVIDER, url, api_key)
        super().__init__(client, model, endpoint, retry, wire_names)

    def parse(
        self, data: Mapping[str, Any], names: WireNameMap, request: LLMRequest
    ) -> LLMResponse:
        return parse_response(data, names)

    def request_body(self, request: LLMRequest, names: WireNameMap) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._model,
            "input": input_items(request.messages, names),
            "store": False,
        }
        if self._reasoning:
            body["include"] = [ENCRYPTED_REASONING]
        if request.tools:
            body["tools"] = [_wire_tool(tool, names) for tool in request.tools]
            body["tool_choice"] = TOOL_CHOICES[request.tool_choice or ToolChoice.AUTO]
        if request.response_format is not None:
            body["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": request.response_format.name,
                    "schema": dict(request.response_format.schema),
                    "strict": True,
                }
            }
        body.update({key: value for key, value in self._options.items() if value is not None})
        return body


def input_items(messages: Iterable[Message], names: WireNameMap) -> list[dict[str, Any]]:
    """The history as Responses input items (an empty text is left out)."""
    items: list[dict[str, Any]] = []
    for message in messages:
        match message:
            case ToolResultMessage(tool_call_id, result):
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": tool_call_id,
                        "output": result.to_json(),
                    }
                )
            case AssistantToolCalls():
                items += _call_items(message, names)
            case SystemMessage(text) if text:
                items.append(_message_item("system", text))
            case UserMessage(text) if text:
                items.append(_message_item("user", text))
            case AssistantText(text) if text:
                items.append(_message_item("assistant", text))
    return items


def _message_item(role: str, text: str) -> dict[str, Any]:
    """A message as text (EasyInputMessage: any role takes a string as its content)."""
    return {"type": "message", "role": role, "content": text}


def _call_items(message: AssistantToolCalls, names: WireNameMap) -> list[dict[str, Any]]:
    """An assistant turn's output items, in the order they came: the first call carries the
    others (reasoning, text), with each call's place among them. Without them (a history
    from another provider) the text goes first, then the calls, without item ids."""
    calls = {call.id: call for call in message.calls}
    carried = (message.calls[0].provider_data or {}).get(OUTPUT)
    if not isinstance(carried, list):
        preamble = [_message_item("assistant", message.preamble)] if message.preamble else []
        return preamble + [_call_item(call, names, None) for call in calls.values()]
    items: list[dict[str, Any]] = []
    for item in carried:
        if item.get("type") != CALL_ITEM:
            items.append(dict(item))
        elif item.get("call_id") in calls:
            items.append(_call_item(calls.pop(item["call_id"]), names, item.get("id")))
    return items + [_call_item(call, names, None) for call in calls.values()]


def _call_item(call: ToolCall, names: WireNameMap, item_id: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": CALL_ITEM,
        "call_id": call.id,
        "name": names.to_wire(call.function.name),
        "arguments": call.function.arguments,
    }
    if isinstance(item_id, str) and item_id:
        item["id"] = item_id
    return item


def _wire_tool(definition: ToolDefinition, names: WireNameMap) -> dict[str, Any]:
    """A function tool: flat, not nested under `function` as in chat completions."""
    tool: dict[str, Any] = {
        "type": "function",
        "name": names.to_wire(definition.name),
        "parameters": dict(definition.parameters or EMPTY_OBJECT_SCHEMA),
        "strict": False,  # MCP tools' schemas are not written for strict mode
    }
    if definition.description:
        tool["description"] = definition.description
    return tool


def parse_response(
    data: Mapping[str, Any],
    names: WireNameMap,
    new_id: Callable[[], str] = lambda: f"call_{uuid.uuid4().hex[:24]}",
) -> LLMResponse:
    """The answer in domain terms. The output items other than calls, and each call's item
    id, ride on the first call for the next request."""
    status = data.get("status")
    if status == "failed" or data.get("error"):
        error = data.get("error") or {}
        message = error.get("message") if isinstance(error, Mapping) else error
        raise LLMError(f"{PROVIDER} response failed: {message or 'no details'}", provider=PROVIDER)
    output = [item for item in data.get("output") or [] if isinstance(item, Mapping)]
    calls = [_domain_call(item, names, new_id) for item in output if item.get("type") == CALL_ITEM]
    if calls:
        carried = _carried(output, [call.id for call in calls])
        calls[0] = ToolCall(calls[0].id, calls[0].function, provider_data={OUTPUT: carried})
    return LLMResponse.of(
        _text_of(output),
        calls,
        model=str(data.get("model") or ""),
        usage=parse_usage(data.get("usage")),
        finish_reason=_finish_reason(data, bool(calls)),
        provider_reason=_provider_reason(data),
    )


def _carried(output: list[Mapping[str, Any]], call_ids: list[str]) -> list[dict[str, Any]]:
    """The output items in order, each call reduced to its call_id and item id (the call
    itself is in the domain's history, under its canonical name). Reasoning that came without
    its encrypted content cannot go back when nothing is stored; then neither do the item ids
    that would ask for it."""
    sendable = all(
        item.get("encrypted_content") for item in output if item.get("type") == "reasoning"
    )
    ids = iter(call_ids)
    carried: list[dict[str, Any]] = []
    for item in output:
        if item.get("type") == CALL_ITEM:
            call = {"type": CALL_ITEM, "call_id": next(ids)}
            carried.append(call | ({"id": item.get("id")} if sendable else {}))
        elif item.get("type") != "reasoning" or sendable:
            carried.append(dict(item) if sendable else _without_id(item))
    return carried


def _without_id(item: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key != "id"}


def _domain_call(
    item: Mapping[str, Any], names: WireNameMap, new_id: Callable[[], str]
) -> ToolCall:
    wire = str(item.get("name") or "")
    arguments = item.get("arguments")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    call_id = item.get("call_id")
    canonical = names.to_canonical(wire) or wire  # an unknown name reaches the loop as is
    return ToolCall(str(call_id) if call_id else new_id(), FunctionCall(canonical, text))


def _text_of(output: list[Mapping[str, Any]]) -> str | None:
    texts = [
        str(part.get("text") or "")
        for item in output
        if item.get("type") == "message"
        for part in item.get("content") or []
        if isinstance(part, Mapping) and part.get("type") == "output_text"
    ]
    return "".join(texts) if texts else None


def _finish_reason(data: Mapping[str, Any], called: bool) -> FinishReason | None:
    if called:
        return FinishReason.TOOL_CALLS
    if data.get("status") == "incomplete":
        return INCOMPLETE_REASONS.get(str(_provider_reason(data)))
    return FinishReason.STOP


def _provider_reason(data: Mapping[str, Any]) -> str | None:
    """Why an incomplete response stopped, else its status (`completed`)."""
    status = data.get("status")
    if status == "incomplete":
        return str((data.get("incomplete_details") or {}).get("reason") or "incomplete")
    return None if status is None else str(status)


def parse_usage(usage: Mapping[str, Any] | None) -> Usage | None:
    if not usage:
        return None
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    return Usage(
        int(usage.get("input_tokens") or 0),
        int(usage.get("output_tokens") or 0),
        int(cached or 0),
        reasoning_tokens=int(reasoning or 0),
    )
