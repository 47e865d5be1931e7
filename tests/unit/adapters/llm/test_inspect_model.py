"""InspectModelLLM's rendering: our conversation and tools as Inspect's messages and
ToolInfo, names every provider accepts mapped back exactly, usage with its cache reads."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolCall as InspectToolCall

from zork_mcp.adapters.llm.inspect_model import InspectModelLLM, llm_response, usage_of
from zork_mcp.domain.llm.messages import (
    AssistantToolCalls,
    FinishReason,
    FunctionCall,
    LLMRequest,
    ToolCall,
    ToolChoice,
    ToolResultMessage,
    Usage,
    initial_messages,
)
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec, tool_definitions
from zork_mcp.domain.tools.wire_names import WireNameMap

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS = tool_definitions([ToolSpec("9lives", "note.add", "a note", SCHEMA)])


async def test_a_conversation_with_tool_calls_reaches_inspect_and_its_answer_comes_back():
    seen = {}
    earlier = ToolCall("call_1", FunctionCall("9lives.note.add", '{"text": "lamp"}'))

    def respond(input, tools, tool_choice, config):
        seen.update(input=input, tools=tools, tool_choice=tool_choice)
        output = ModelOutput.from_content("mockllm/model", "", stop_reason="tool_calls")
        call = InspectToolCall(id="call_2", function=tools[0].name, arguments={"text": "egg"})
        output.choices[0].message.tool_calls = [call]
        output.usage = ModelUsage(
            input_tokens=7, output_tokens=3, total_tokens=10, input_tokens_cache_read=20
        )
        return output

    llm = InspectModelLLM(
        get_model("mockllm/model", custom_outputs=respond), asyncio.get_running_loop()
    )
    messages = (
        *initial_messages("sys", "West of House"),
        AssistantToolCalls((earlier,), "noting"),
        ToolResultMessage("call_1", ToolCallResult.success("noted")),
    )
    response = await llm.complete(LLMRequest(messages, TOOLS, ToolChoice.AUTO))

    [tool] = seen["tools"]
    assert tool.name == "_9lives__note_add", "a first character Gemini accepts, no dots"
    assert tool.parameters.required == ["text"] and tool.description == "a note"
    assert seen["tool_choice"] == "auto"
    _, _, assistant, result = seen["input"]
    assert isinstance(assistant, ChatMessageAssistant) and assistant.text == "noting"
    assert assistant.tool_calls[0].function == tool.name
    assert assistant.tool_calls[0].arguments == {"text": "lamp"}
    assert isinstance(result, ChatMessageTool) and result.function == tool.name
    assert result.content == ToolCallResult.success("noted").to_json()
    [call] = response.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == (
        "call_2",
        "9lives.note.add",
        '{"text": "egg"}',
    )
    assert response.finish_reason == "tool_calls" and response.content is None
    usage = response.usage
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (27, 20, 3)


async def test_a_provider_failure_is_an_llm_error_and_a_limit_is_inspects():
    from inspect_ai.util import LimitExceededError

    from zork_mcp.domain.errors import LLMError

    failures = iter([ConnectionError("refused"), LimitExceededError("token", value=9, limit=5)])

    def respond(input, tools, tool_choice, config):
        raise next(failures)

    loop = asyncio.get_running_loop()
    model = get_model("mockllm/model", custom_outputs=respond)
    llm = InspectModelLLM(model, loop)
    request = LLMRequest(tuple(initial_messages("sys", "West of House")))
    with pytest.raises(LLMError, match="ConnectionError: refused"):
        await llm.complete(request)
    with pytest.raises(LimitExceededError):
        await llm.complete(request)


def test_inspects_usage_counts_cache_reads_and_writes_as_parts_of_the_prompt():
    counted = ModelUsage(
        input_tokens=100,
        output_tokens=10,
        total_tokens=180,
        input_tokens_cache_read=50,
        input_tokens_cache_write=20,
    )
    usage = usage_of(counted)
    assert usage == Usage(170, 10, 50, cache_write_tokens=20)
    assert usage_of(None) is None


@pytest.mark.parametrize(
    ("stop", "reason"),
    [("max_tokens", FinishReason.LENGTH), ("model_length", FinishReason.LENGTH), ("unknown", None)],
)
def test_inspects_stop_reason_becomes_the_domains_finish_reason(stop, reason):
    output = ModelOutput.from_content("mockllm/model", "done", stop_reason=stop)
    response = llm_response(output, WireNameMap([]))
    assert (response.content, response.finish_reason, response.provider_reason) == (
        "done",
        reason,
        stop,
    )
