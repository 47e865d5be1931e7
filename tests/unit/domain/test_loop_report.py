"""What the tool loop reports (requirement 7), event by event and span by span.

Each scenario runs the real loop over the fakes with a clock that ticks 0.0123456 s per reading,
and pins the whole event stream: type, message, level and fields, in order. The loop's one
observer, LoopReport, owns these texts; a change to any of them shows here.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, text_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer, crash, hang
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.facts.events import SpanKind
from zork_mcp.domain.llm.messages import FinishReason, LLMResponse, Usage, initial_messages
from zork_mcp.domain.loop.context_budget import ContextBudget
from zork_mcp.domain.loop.loop_policy import AGENT_POLICY, LoopLimits, LoopPolicy
from zork_mcp.domain.loop.recovery import Recovery
from zork_mcp.domain.loop.tool_loop import ToolLoop

TOOLS = ("box.crash", "box.echo", "box.fail", "box.hang")
LIMITS = LoopLimits(max_iterations=3, tool_timeout_seconds=0.05)
LONG = "x" * 400


def fail(**_: object) -> None:
    raise RuntimeError("no such door")


def echo(text: str) -> str:
    return text


def run(replies: list, limits: LoopLimits = LIMITS, policy: LoopPolicy = AGENT_POLICY):
    server = FakeToolServer("box", {"fail": fail, "echo": echo, "hang": hang, "crash": crash})
    telemetry, ticks = FakeTelemetry(), itertools.count()

    async def play():
        async with server.open_session() as session:
            loop = ToolLoop(
                ScriptedLLM(replies, model="m1"),
                session,
                limits,
                telemetry,
                lambda: 100 + next(ticks) * 0.0123456,
                turn=4,
                policy=policy,
            )
            return await loop.run(initial_messages("s", "West of House"))

    asyncio.run(play())
    return telemetry


def calls(*pairs: tuple[str, object]):
    """Tool calls with ids of their own, so the history (and its token estimate) is the same
    whichever tests ran before."""
    reply = tool_calls_reply(*pairs)
    ids = (f"call_{n}" for n in itertools.count(1))
    return replace(reply, tool_calls=tuple(replace(c, id=next(ids)) for c in reply.tool_calls))


def events(telemetry: FakeTelemetry) -> list[tuple]:
    return [(e.type.name, e.message, e.level.name, dict(e.fields)) for e in telemetry.events]


def at(iteration: int, **fields: object) -> dict:
    return {"iteration": iteration, "turn": 4, **fields}


SPOKEN = (
    "MCP_SERVER_PROTOCOL",
    "MCP server 'box' is spoken to in MCP 2026-07-28 (modern era)",
    "INFO",
    at(0, server="box", version="2026-07-28", era="modern"),
)


def test_a_failure_that_opens_the_circuit_then_backtracks_then_an_empty_reply():
    policy = replace(AGENT_POLICY, recovery=Recovery(max_backtracks=1, breaker_threshold=1))
    telemetry = run(
        [calls(("box.fail", {})), text_reply(""), action_reply("north")],
        policy=policy,
    )
    assert events(telemetry) == [
        SPOKEN,
        ("MCP_ITERATION_START", "Agent tool-calling iteration 1/3", "INFO",
         at(1, max_iterations=3)),
        ("MCP_TOOL_CALL", "Agent calling tool box.fail", "INFO",
         at(1, tool_name="box.fail", arguments={})),
        ("MCP_TOOL_RESULT", "Tool result received from box.fail (0.0s)", "INFO",
         at(1, tool_name="box.fail", result_type="NoneType", result_length=4, is_error=True,
            result_preview="RuntimeError: no such door", duration_ms=12.346, server_name="box",
            timeout_seconds=0.05)),
        ("MCP_TOOL_ERROR", "Tool call failed: box.fail", "WARNING",
         at(1, tool_name="box.fail", error="RuntimeError: no such door", outcome="tool_error")),
        ("MCP_CIRCUIT_OPEN", "Tool box.fail failed 1 times in a row: not called again",
         "WARNING", at(1, tool_name="box.fail")),
        ("MCP_BACKTRACK", "Backtracking after 1 failed tool call(s)", "WARNING",
         at(1, backtrack=1, failed_tools=["box.fail"])),
        ("MCP_ITERATION_START", "Agent tool-calling iteration 2/3", "INFO",
         at(2, max_iterations=3)),
        ("MCP_UNEXPECTED_STATE", "LLM returned no content and no tool_calls, finish_reason=stop",
         "WARNING", at(2, finish_reason="stop", provider_reason=None)),
        ("MCP_NO_CONTENT", "Agent exited tool loop without content after 2 iterations "
         "(unexpected_state); asking for the final answer without tools", "WARNING",
         at(2, iterations=2, reason="unexpected_state")),
        ("MCP_SESSION_COMPLETE", "MCP session complete (2 iterations, 1 tool calls)", "INFO",
         at(2, iterations=2, tool_calls_count=1, tools_used=["box.fail"], final_action="north")),
    ]  # fmt: skip


def test_a_timeout_and_a_dead_server_each_end_their_batch_then_the_answer_is_not_json():
    telemetry = run(
        [
            calls(("box.hang", {}), ("box.echo", {"text": "a"})),
            calls(("box.crash", {}), ("box.echo", {"text": "b"})),
            text_reply("not json\nat all"),  # one line would be read as the command
        ]
    )
    parse_error = "neither a JSON answer nor one short line: 'not json\\nat all'"
    died = (
        "Tool call box.crash failed: the tool server stopped: server 'box' died: "
        "the fake server process exited"
    )
    assert events(telemetry) == [
        SPOKEN,
        ("MCP_ITERATION_START", "Agent tool-calling iteration 1/3", "INFO",
         at(1, max_iterations=3)),
        ("MCP_TOOL_CALL", "Agent calling tool box.hang", "INFO",
         at(1, tool_name="box.hang", arguments={})),
        ("MCP_TOOL_TIMEOUT", "Tool call timeout: box.hang", "WARNING",
         at(1, tool_name="box.hang", timeout_seconds=0.05)),
        ("MCP_TOOL_SKIPPED", "Skipping box.echo: skipped: an earlier call in this batch timed "
         "out", "INFO", at(1, tool_name="box.echo")),
        ("MCP_ITERATION_START", "Agent tool-calling iteration 2/3", "INFO",
         at(2, max_iterations=3)),
        ("MCP_TOOL_CALL", "Agent calling tool box.crash", "INFO",
         at(2, tool_name="box.crash", arguments={})),
        ("MCP_SESSION_BROKEN", "Tool server stopped during box.crash: no more tool calls this "
         "turn", "WARNING", at(2, tool_name="box.crash", error=died)),
        ("MCP_TOOL_SKIPPED", "Skipping box.echo: skipped: the tool server stopped earlier in "
         "this batch", "INFO", at(2, tool_name="box.echo")),
        ("MCP_NO_CONTENT", "Agent exited tool loop without content after 2 iterations "
         "(session_broken); asking for the final answer without tools", "WARNING",
         at(2, iterations=2, reason="session_broken")),
        ("AGENT_PARSE_ERROR", f"Failed to parse agent response: {parse_error}", "ERROR",
         at(2, raw_response="not json\nat all", error=parse_error)),
        ("MCP_SESSION_COMPLETE", "MCP session complete (2 iterations, 4 tool calls)", "INFO",
         at(2, iterations=2, tool_calls_count=4, tools_used=["box.crash", "box.hang"],
            final_action="look")),
    ]  # fmt: skip


def test_calls_refused_before_running_then_the_iterations_run_out_over_budget():
    budget = ContextBudget(max_tokens=60, keep_recent_steps=1)
    telemetry = run(
        [
            calls(("box.echo", "{oops"), ("box.nope", {})),
            calls(("box.echo", {"text": LONG})),
            action_reply("south"),
        ],
        replace(LIMITS, max_iterations=2, context_budget=budget),
    )
    bad_json = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    assert events(telemetry) == [
        SPOKEN,
        ("MCP_ITERATION_START", "Agent tool-calling iteration 1/2", "INFO",
         at(1, max_iterations=2)),
        ("MCP_TOOL_CALL", "Agent calling tool box.echo with arguments that are not valid JSON",
         "INFO", at(1, tool_name="box.echo", arguments="{oops", arguments_error=bad_json)),
        ("MCP_TOOL_ERROR", "Tool call failed: box.echo", "WARNING",
         at(1, tool_name="box.echo", error=f"Tool call box.echo failed: invalid JSON "
            f"arguments: {bad_json}", outcome="bad_arguments")),
        ("MCP_TOOL_CALL", "Agent calling tool box.nope", "INFO",
         at(1, tool_name="box.nope", arguments={})),
        ("MCP_TOOL_ERROR", "Tool call failed: box.nope", "WARNING",
         at(1, tool_name="box.nope", error=f"Tool call box.nope failed: unknown tool; "
            f"available: {list(TOOLS)}", outcome="unknown_tool")),
        ("MCP_ITERATION_START", "Agent tool-calling iteration 2/2", "INFO",
         at(2, max_iterations=2)),
        ("MCP_TOOL_CALL", "Agent calling tool box.echo", "INFO",
         at(2, tool_name="box.echo", arguments={"text": LONG})),
        ("MCP_TOOL_RESULT", "Tool result received from box.echo (0.0s)", "INFO",
         at(2, tool_name="box.echo", result_type="str", result_length=400, is_error=False,
            result_preview=LONG, duration_ms=12.346, server_name="box", timeout_seconds=0.05)),
        ("MCP_NO_CONTENT", "Agent exited tool loop without content after 2 iterations "
         "(max_iterations); asking for the final answer without tools", "WARNING",
         at(2, iterations=2, reason="max_iterations")),
        ("MCP_CONTEXT_COMPACTED", "Context over budget (~466 tokens): 1 older step(s) "
         "summarised, ~392 tokens sent", "INFO",
         at(2, tokens_before=466, tokens_after=392, max_tokens=60, steps_condensed=1,
            critical_kept=0)),
        ("MCP_SESSION_COMPLETE", "MCP session complete (2 iterations, 3 tool calls)", "INFO",
         at(2, iterations=2, tool_calls_count=3, tools_used=["box.echo", "box.nope"],
            final_action="south")),
    ]  # fmt: skip


def test_each_llm_call_and_each_tool_call_is_one_span_with_what_it_did():
    call = calls(("box.echo", {"text": "a"}))
    telemetry = run([call, action_reply("north")])
    first, tool, final = telemetry.spans
    assert (first.name, first.kind, len(first.input)) == ("agent-llm-call", SpanKind.GENERATION, 2)
    assert first.metadata == {
        "model": "m1",
        "tools": 4,
        "tool_choice": "auto",
        "forced_final": False,
        "response_model": "",
    }
    assert first.output == {
        "content": None,
        "tool_calls": [{"name": "box.echo", "arguments": '{"text": "a"}'}],
        "finish_reason": "tool_calls",
    }
    assert first.usage == Usage(10, 5)
    assert (tool.name, tool.kind, tool.input) == ("mcp-tool-box.echo", SpanKind.SPAN, {"text": "a"})
    assert tool.output == {"content": "a"}
    assert tool.metadata == {
        "server_name": "box",
        "timeout_seconds": 0.05,
        "tool_name": "box.echo",
        "call_id": call.tool_calls[0].id,
        "is_error": False,
        "outcome": "succeeded",
        "duration_ms": 12.346,
    }
    assert (final.name, len(final.input), final.output["finish_reason"]) == (
        "agent-llm-call",
        4,
        "stop",
    )
    assert all(span.closed for span in telemetry.spans)


def test_an_empty_reply_names_the_providers_own_word_for_why_it_stopped():
    empty = LLMResponse(
        None, finish_reason=FinishReason.ERROR, provider_reason="MALFORMED_FUNCTION_CALL"
    )
    telemetry = run([empty, action_reply("north")])
    (unexpected,) = [e for e in events(telemetry) if e[0] == "MCP_UNEXPECTED_STATE"]
    assert unexpected[1:] == (
        "LLM returned no content and no tool_calls, finish_reason=error "
        "(the provider said 'MALFORMED_FUNCTION_CALL')",
        "WARNING",
        at(1, finish_reason="error", provider_reason="MALFORMED_FUNCTION_CALL"),
    )
