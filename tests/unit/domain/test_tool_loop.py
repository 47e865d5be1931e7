"""The tool-calling loop against the fakes: requirements 4.6, 4.7, 5.1-5.10 and 6.2-6.6."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.support.conversation import tool_messages, unanswered_tool_calls
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, text_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer, crash, hang
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.llm.messages import (
    FINAL_ACTION_PROMPT,
    LLMResponse,
    SystemMessage,
    UserMessage,
    initial_messages,
    to_openai_dict,
    user_message,
)
from zork_mcp.domain.loop.agent_response import FALLBACK_ACTION
from zork_mcp.domain.loop.batch_policy import SKIPPED_AFTER_BREAK, SKIPPED_AFTER_TIMEOUT
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.loop_records import ExitReason, LoopOutcome
from zork_mcp.domain.loop.tool_loop import ToolLoop


def think(thought: str, step: int = 1) -> dict:
    return {"thought": thought, "step": step}


def fail(reason: str) -> None:
    raise RuntimeError(reason)


async def slow_echo(text: str) -> str:
    await asyncio.sleep(0.01)
    return text


def make_server() -> FakeToolServer:
    return FakeToolServer(
        "box",
        {"think": think, "fail": fail, "hang": hang, "crash": crash, "echo": slow_echo},
    )


async def run_loop(
    replies: list,
    server: FakeToolServer | None = None,
    limits: LoopLimits = LoopLimits(max_iterations=5, tool_timeout_seconds=0.2),
) -> tuple[LoopOutcome, ScriptedLLM, FakeTelemetry]:
    llm, telemetry = ScriptedLLM(replies), FakeTelemetry()
    messages = initial_messages("You play Zork.", "West of House")
    if server is None:
        outcome = await ToolLoop(llm, None, limits, telemetry, time.monotonic).run(messages)
        return outcome, llm, telemetry
    async with server.open_session() as session:
        loop = ToolLoop(llm, session, limits, telemetry, time.monotonic, turn=7)
        outcome = await loop.run(messages)
    return outcome, llm, telemetry


async def test_tool_calls_run_through_the_session_and_results_reach_the_next_call():
    server = make_server()
    outcome, llm, _ = await run_loop(
        [tool_calls_reply(("box.think", think("open it"))), action_reply("open mailbox")], server
    )
    assert [call.name for call in server.calls] == ["box.think"]  # 5.1
    assert server.calls[0].arguments == {"thought": "open it", "step": 1}  # 5.3
    second = llm.requests[1].messages  # 5.4, 5.5
    [result] = tool_messages(second)
    assert json.loads(result.result.to_json()) == {"content": {"thought": "open it", "step": 1}}
    assert outcome.answer.response.action == "open mailbox"
    assert outcome.exit_reason is ExitReason.CONTENT  # 5.6
    assert len(llm.requests) == 2


async def test_batch_runs_sequentially_in_order():
    server = make_server()
    batch = tool_calls_reply(*[("box.echo", {"text": str(i)}) for i in range(4)])
    await run_loop([batch, action_reply("look")], server)
    assert [call.arguments["text"] for call in server.calls] == ["0", "1", "2", "3"]
    for earlier, later in zip(server.calls, server.calls[1:], strict=False):
        assert earlier.finished <= later.started  # 5.2: never overlapping


async def test_bad_json_arguments_become_an_error_result_and_the_loop_goes_on():
    server = make_server()
    outcome, llm, telemetry = await run_loop(
        [
            tool_calls_reply(("box.think", "{not json"), ("box.think", think("ok"))),
            action_reply("north"),
        ],
        server,
    )
    assert [call.arguments for call in server.calls] == [think("ok")]
    first, second = tool_messages(llm.requests[1].messages)
    assert "invalid JSON arguments" in json.loads(first.result.to_json())["error"]
    assert json.loads(second.result.to_json()) == {"content": think("ok")}
    assert outcome.answer.response.action == "north"
    assert telemetry.of_type(EventType.MCP_TOOL_ERROR)


async def test_max_iterations_force_a_final_answer_without_tools_and_with_a_schema():
    server = make_server()
    looping = [tool_calls_reply(("box.think", think("again"))) for _ in range(3)]
    outcome, llm, telemetry = await run_loop(
        [*looping, action_reply("wait")], server, LoopLimits(max_iterations=3)
    )
    assert len(server.calls) == 3
    final = llm.requests[-1]
    assert final.messages[-1] == user_message(FINAL_ACTION_PROMPT)  # 5.7
    assert final.tools is None and final.tool_choice is None  # 5.8
    assert final.response_format is not None  # 5.9
    assert final.response_format.name == "AgentResponse"
    assert (
        outcome.exit_reason is ExitReason.MAX_ITERATIONS
        and outcome.answer.response.action == "wait"
    )
    assert telemetry.of_type(EventType.MCP_NO_CONTENT)


async def test_loop_calls_never_carry_response_format_and_cache_control_is_everywhere():
    server = make_server()
    _, llm, _ = await run_loop(
        [tool_calls_reply(("box.think", think("a"))), text_reply(None), action_reply("up")], server
    )
    loop_calls, final = llm.requests[:-1], llm.requests[-1]
    assert all(r.response_format is None and r.tools for r in loop_calls)  # 4.6
    for request in llm.requests:  # 4.7: the request's policy marks every system and user message
        for message in request.messages:
            assert request.cache.marks(message) is isinstance(message, SystemMessage | UserMessage)
    assert final.response_format is not None


async def test_neither_content_nor_tool_calls_warns_and_forces_the_final_answer():
    server = make_server()
    outcome, llm, telemetry = await run_loop([text_reply(None), action_reply("east")], server)
    assert telemetry.of_type(EventType.MCP_UNEXPECTED_STATE)  # 5.10
    assert outcome.exit_reason is ExitReason.UNEXPECTED_STATE
    assert llm.requests[-1].tools is None and outcome.answer.response.action == "east"


async def test_a_failing_call_is_reported_and_the_rest_of_its_batch_still_runs():
    server = make_server()
    _, llm, telemetry = await run_loop(
        [
            tool_calls_reply(("box.fail", {"reason": "boom"}), ("box.think", think("next"))),
            action_reply("west"),
        ],
        server,
    )
    assert [call.name for call in server.calls] == ["box.fail", "box.think"]  # 6.3, 6.4
    failed, ok = tool_messages(llm.requests[1].messages)
    assert "boom" in json.loads(failed.result.to_json())["error"]  # 6.2
    assert json.loads(ok.result.to_json()) == {"content": think("next")}
    [error] = telemetry.of_type(EventType.MCP_TOOL_ERROR)
    assert error.fields["tool_name"] == "box.fail" and "boom" in error.fields["error"]


async def test_a_timeout_skips_the_rest_of_the_batch_and_asks_the_llm_again_with_tools():
    server = make_server()
    outcome, llm, telemetry = await run_loop(
        [
            tool_calls_reply(
                ("box.hang", {}), ("box.think", think("never")), ("box.echo", {"text": "x"})
            ),
            tool_calls_reply(("box.think", think("after"))),
            action_reply("south"),
        ],
        server,
    )
    assert [call.name for call in server.calls] == ["box.hang", "box.think"]  # 6.5
    timed_out, *skipped = tool_messages(llm.requests[1].messages)
    assert "timed out" in json.loads(timed_out.result.to_json())["error"]  # 6.6
    assert [json.loads(m.result.to_json())["error"] for m in skipped] == [SKIPPED_AFTER_TIMEOUT] * 2
    assert llm.requests[1].tools, "after a timeout the LLM decides, with tools still offered"
    assert outcome.answer.response.action == "south"
    assert telemetry.of_type(EventType.MCP_TOOL_TIMEOUT)


async def test_a_dead_server_stops_tool_use_and_forces_the_final_answer():
    server = make_server()
    outcome, llm, telemetry = await run_loop(
        [
            tool_calls_reply(("box.crash", {}), ("box.think", think("never"))),
            action_reply("climb tree"),
        ],
        server,
    )
    assert [call.name for call in server.calls] == ["box.crash"]
    assert len(llm.requests) == 2
    final = llm.requests[1]
    assert final.tools is None and final.response_format is not None
    skipped = json.loads(tool_messages(final.messages)[1].result.to_json())
    assert skipped["error"] == SKIPPED_AFTER_BREAK
    assert (
        outcome.exit_reason is ExitReason.SESSION_BROKEN
        and outcome.answer.response.action == "climb tree"
    )
    assert telemetry.of_type(EventType.MCP_SESSION_BROKEN)


async def test_every_tool_call_id_is_answered_before_every_llm_call():
    server = make_server()
    _, llm, _ = await run_loop(
        [
            tool_calls_reply(("box.fail", {"reason": "x"}), ("box.hang", {}), ("box.think", {})),
            tool_calls_reply(("nope.tool", {}), ("box.crash", {}), ("box.echo", {"text": "y"})),
            action_reply("look"),
        ],
        server,
    )
    for request in llm.requests:
        assert unanswered_tool_calls(request.messages) == []


async def test_an_unknown_tool_gets_an_error_naming_the_available_ones():
    server = make_server()
    _, llm, _ = await run_loop(
        [tool_calls_reply(("box.nothing", {})), action_reply("look")], server
    )
    [message] = tool_messages(llm.requests[1].messages)
    error = json.loads(message.result.to_json())["error"]
    assert "unknown tool" in error and "box.think" in error
    assert server.calls == []


async def test_without_a_session_one_schema_constrained_call_answers():
    outcome, llm, _ = await run_loop([action_reply("open mailbox", "a mailbox is here")])
    [request] = llm.requests
    assert request.tools is None and request.response_format is not None
    assert FINAL_ACTION_PROMPT not in [to_openai_dict(m)["content"] for m in request.messages]
    response = outcome.answer.response
    assert (response.action, response.thinking, response.new_objective) == (
        "open mailbox",
        "a mailbox is here",
        None,
    )


async def test_an_unparseable_answer_falls_back_to_a_safe_action_and_says_why():
    reply = "I think I will go north.\nThe path there looks promising."  # one line: a command
    outcome, _, telemetry = await run_loop([text_reply(reply)])
    assert outcome.answer.response.action == FALLBACK_ACTION
    [event] = telemetry.of_type(EventType.AGENT_PARSE_ERROR)
    assert event.fields["raw_response"] == reply
    assert outcome.answer.error


async def test_an_empty_final_answer_still_yields_a_game_command():
    server = make_server()
    outcome, _, _ = await run_loop([text_reply(None), text_reply("")], server)
    assert outcome.answer.response.action == FALLBACK_ACTION


async def test_events_carry_tool_name_arguments_iteration_and_result_shape():
    server = make_server()
    _, _, telemetry = await run_loop(
        [tool_calls_reply(("box.think", think("t"))), action_reply("look")], server
    )
    [call] = telemetry.of_type(EventType.MCP_TOOL_CALL)
    assert call.fields["tool_name"] == "box.think"  # 7.1
    assert call.fields["arguments"] == think("t") and call.fields["iteration"] == 1
    assert call.fields["turn"] == 7
    [result] = telemetry.of_type(EventType.MCP_TOOL_RESULT)  # 7.2
    assert result.fields["result_type"] == "dict"
    assert result.fields["result_length"] == len(str(think("t")))
    assert result.fields["duration_ms"] >= 0
    [complete] = telemetry.of_type(EventType.MCP_SESSION_COMPLETE)  # 7.3
    assert complete.fields["iterations"] == 2 and complete.fields["tools_used"] == ["box.think"]


async def test_each_tool_call_gets_its_own_span_inside_llm_usage_is_summed():
    server = make_server()
    outcome, _, telemetry = await run_loop(
        [
            tool_calls_reply(("box.think", think("a")), ("box.echo", {"text": "b"})),
            action_reply("look"),
        ],
        server,
    )
    names = [span.name for span in telemetry.spans]
    assert names.count("mcp-tool-box.think") == 1 and names.count("mcp-tool-box.echo") == 1
    assert all(span.closed for span in telemetry.spans)
    assert outcome.usage.prompt_tokens == 20 and outcome.llm_calls == 2


def test_responses_keep_content_and_tool_calls_exclusive():
    with pytest.raises(ValueError):
        LLMResponse("text", tool_calls=tool_calls_reply(("a.b", {})).tool_calls)
    normalised = LLMResponse.of("let me think", tool_calls_reply(("a.b", {})).tool_calls)
    assert normalised.content is None and normalised.preamble == "let me think"
