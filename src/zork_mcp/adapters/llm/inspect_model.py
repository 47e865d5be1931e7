"""The LLM port over Inspect AI's model API, for episodes played as an Inspect task.

The episode runs its turns on a thread of its own, each in its own event loop; every
`generate` is handed to the loop Inspect runs the sample on, so Inspect's sample context,
transcript, retries and limits (tokens, cost, time) apply to it as to any solver's call.
Canonical `server.tool` names become names every provider Inspect speaks to accepts, and are
mapped back exactly. Inspect's own signals (a limit exceeded, a sample terminated) are raised
as they are, for Inspect to handle; a provider's failure becomes an LLMError.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Mapping
from typing import Any, assert_never

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    ResponseSchema,
    StopReason,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolChoice as InspectToolChoice
from inspect_ai.tool import ToolInfo, ToolParams
from inspect_ai.util import JSONSchema

from zork_mcp.adapters.llm.messages import arguments_object, call_names, canonical_names
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
from zork_mcp.domain.tools.wire_names import WireNameMap, WireNameRule

PROVIDER = "inspect"
# Inspect passes tool names on to whichever provider the eval names: what all of them accept
# (OpenAI's and Anthropic's characters, OpenAI's and Gemini's 64, Gemini's first character).
INSPECT_WIRE_NAMES = WireNameRule(PROVIDER, r"a-zA-Z0-9_\-", 64, first_chars=r"a-zA-Z_")
TOOL_CHOICES: Mapping[ToolChoice, InspectToolChoice] = {
    ToolChoice.AUTO: "auto",
    ToolChoice.NONE: "none",
    ToolChoice.REQUIRED: "any",
}
STOP_REASONS: Mapping[StopReason, FinishReason] = {
    "stop": FinishReason.STOP,
    "max_tokens": FinishReason.LENGTH,
    "model_length": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
}


class InspectModelLLM:
    def __init__(
        self,
        model: Model,
        inspect_loop: asyncio.AbstractEventLoop,
        config: GenerateConfig | None = None,
    ) -> None:
        """`inspect_loop`: the loop the sample runs on, where every `generate` is run."""
        self._model, self._loop = model, inspect_loop
        self._config = config or GenerateConfig()

    @property
    def model(self) -> str:
        return str(self._model)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        names = WireNameMap(canonical_names(request), INSPECT_WIRE_NAMES)
        calls = call_names(request.messages)
        messages = [chat_message(m, names, calls) for m in request.messages]
        tools = [tool_info(tool, names) for tool in request.tools or ()]
        choice = TOOL_CHOICES[request.tool_choice] if request.tool_choice else None
        config = self._config
        if request.response_format is not None:
            schema = response_schema(request.response_format)
            config = config.model_copy(update={"response_schema": schema})
        output = await self._on_inspect_loop(self._model.generate(messages, tools, choice, config))
        return llm_response(output, names)

    async def _on_inspect_loop(self, generate: Coroutine[Any, Any, ModelOutput]) -> ModelOutput:
        try:
            future = asyncio.run_coroutine_threadsafe(generate, self._loop)
        except RuntimeError as e:  # Inspect's loop has closed: the eval is over
            generate.close()
            raise LLMError(f"Inspect's event loop is gone: {e}", provider=PROVIDER) from e
        try:
            return await asyncio.wrap_future(future)
        except Exception as e:
            if _is_inspects_own(e):
                raise
            message = f"Inspect's model {self.model} failed: {type(e).__name__}: {e}"
            raise LLMError(message, provider=PROVIDER) from e


def _is_inspects_own(error: BaseException) -> bool:
    """A limit exceeded, a sample terminated: Inspect's to handle, not a provider's failure."""
    return type(error).__module__.split(".")[0] == "inspect_ai"


def chat_message(message: Message, names: WireNameMap, calls: Mapping[str, str]) -> ChatMessage:
    """`calls`: tool_call_id -> canonical name, for the tool result that answers each call."""
    match message:
        case SystemMessage(text):
            return ChatMessageSystem(content=text)
        case UserMessage(text):
            return ChatMessageUser(content=text)
        case AssistantText(text):
            return ChatMessageAssistant(content=text)
        case AssistantToolCalls(tool_calls, preamble):
            wire_calls = [_inspect_call(call, names) for call in tool_calls]
            return ChatMessageAssistant(content=preamble or "", tool_calls=wire_calls)
        case ToolResultMessage(tool_call_id, result):
            name = calls.get(tool_call_id)
            function = names.to_wire(name) if name is not None else None
            return ChatMessageTool(
                content=result.to_json(), tool_call_id=tool_call_id, function=function
            )
        case _:
            assert_never(message)


def _inspect_call(call: ToolCall, names: WireNameMap) -> InspectToolCall:
    return InspectToolCall(
        id=call.id,
        function=names.to_wire(call.function.name),
        arguments=arguments_object(call.function.arguments),
    )


def tool_info(tool: ToolDefinition, names: WireNameMap) -> ToolInfo:
    """A tool the domain offers as Inspect's ToolInfo."""
    return ToolInfo(
        name=names.to_wire(tool.name),
        description=tool.description or "",
        parameters=ToolParams.model_validate(dict(tool.parameters or {})),
    )


def response_schema(response_format: ResponseFormat) -> ResponseSchema:
    schema = JSONSchema.model_validate(dict(response_format.schema))
    return ResponseSchema(name=response_format.name, json_schema=schema, strict=True)


def llm_response(output: ModelOutput, names: WireNameMap) -> LLMResponse:
    if not output.choices:
        raise LLMError(
            f"Inspect's model answered without a choice ({output.error or 'no error given'})",
            provider=PROVIDER,
        )
    choice = output.choices[0]
    message = choice.message
    calls = [_domain_call(call, names) for call in message.tool_calls or ()]
    return LLMResponse.of(
        message.text or None,
        calls,
        model=output.model,
        usage=usage_of(output.usage),
        finish_reason=STOP_REASONS.get(choice.stop_reason),
        provider_reason=choice.stop_reason,
    )


def _domain_call(call: InspectToolCall, names: WireNameMap) -> ToolCall:
    canonical = names.to_canonical(call.function) or call.function  # unknown: to the loop as is
    return ToolCall(call.id, FunctionCall(canonical, json.dumps(call.arguments)))


def usage_of(usage: ModelUsage | None) -> Usage | None:
    """Inspect counts cache reads and writes apart from `input_tokens`; ours are a part of
    the prompt's tokens."""
    if usage is None:
        return None
    cached = usage.input_tokens_cache_read or 0
    written = usage.input_tokens_cache_write or 0
    return Usage(
        prompt_tokens=usage.input_tokens + cached + written,
        completion_tokens=usage.output_tokens,
        cached_tokens=cached,
        cost_usd=usage.total_cost,
        reasoning_tokens=usage.reasoning_tokens or 0,
        cache_write_tokens=written,
    )
