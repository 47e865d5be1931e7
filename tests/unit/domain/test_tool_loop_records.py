"""Each call the LLM asks for leaves one record saying what became of it (MCP-Ghost's tool
chain is built from these): made, refused (bad JSON, circuit open), timed out or skipped,
with the reasoning the LLM gave beside its calls and the circuit breaker's verdict."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace

import pytest

from zork_mcp.adapters.llm.fake import ScriptedLLM, text_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer, hang
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    SystemMessage,
    ToolResultMessage,
    Usage,
    UserMessage,
    initial_messages,
    user_message,
)
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.loop_records import ExitReason
from zork_mcp.domain.loop.recovery import Recovery
from zork_mcp.domain.loop.tool_loop import ToolLoop
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.ghost.run import ghost_policy

TICK = 0.0123456  # seconds between two readings of the clock


def fail(**_: object) -> None:
    raise RuntimeError("locked")


def echo(text: str) -> str:
    return text


def calls(preamble: str | None, *pairs: tuple[str, object]):
    reply = tool_calls_reply(*pairs, preamble=preamble)
    ids = (f"{preamble}-{n}" for n in itertools.count(1))
    return replace(reply, tool_calls=tuple(replace(c, id=next(ids)) for c in reply.tool_calls))


def run_ghost_loop(replies: list):
    server = FakeToolServer("box", {"fail": fail, "echo": echo, "hang": hang})
    policy = replace(ghost_policy(False), recovery=Recovery(breaker_threshold=2))
    telemetry, ticks = FakeTelemetry(), itertools.count()

    async def play():
        async with server.open_session() as session:
            loop = ToolLoop(
                ScriptedLLM(replies),
                session,
                LoopLimits(max_iterations=6, tool_timeout_seconds=0.05),
                telemetry,
                lambda: 100 + next(ticks) * TICK,
                policy=policy,
            )
            return await loop.run(initial_messages("s", "u"))

    return asyncio.run(play()), telemetry


def test_every_call_asked_for_has_a_record_of_what_became_of_it():
    outcome, telemetry = run_ghost_loop(
        [
            calls("door", ("box.fail", {}), ("box.fail", {})),
            calls("again", ("box.fail", {}), ("box.echo", {"text": "a"}), ("box.echo", "{x")),
            calls("echo", ("box.echo", {"text": "b"})),
            calls("wait", ("box.hang", {}), ("box.echo", {"text": "c"})),
            text_reply("done"),
        ]
    )
    rows = [
        (r.iteration, r.call_id, r.tool_name, r.arguments, r.outcome, r.reasoning,
         r.opened_circuit, round(r.duration_seconds, 7))
        for r in outcome.tool_chain
    ]  # fmt: skip
    made = round(TICK, 7)
    assert rows == [
        (1, "door-1", "box.fail", {}, CallOutcome.TOOL_ERROR, "door", False, made),
        (1, "door-2", "box.fail", {}, CallOutcome.TOOL_ERROR, "door", True, made),
        (2, "again-1", "box.fail", {}, CallOutcome.CIRCUIT_OPEN, "again", False, 0.0),
        (2, "again-2", "box.echo", {"text": "a"}, CallOutcome.SUCCEEDED, "again", False, made),
        (2, "again-3", "box.echo", None, CallOutcome.BAD_ARGUMENTS, "again", False, 0.0),
        (3, "echo-1", "box.echo", {"text": "b"}, CallOutcome.SUCCEEDED, "echo", False, made),
        (4, "wait-1", "box.hang", {}, CallOutcome.TIMED_OUT, "wait", False, made),
        (4, "wait-2", "box.echo", None, CallOutcome.SKIPPED, None, False, 0.0),
    ]  # fmt: skip
    refused = outcome.tool_chain[2].result
    assert refused.error_message == (
        "Tool call box.fail failed: circuit open after 2 consecutive failures; not called again"
    )
    assert all(e.fields["turn"] == 0 for e in telemetry.events), "no turn given: turn 0"


def backtracking_run(wrap=lambda session: session):
    """A run whose one call to box.fail fails, backtracked from once, over `wrap(session)`."""
    server = FakeToolServer("box", {"fail": fail})
    policy = replace(ghost_policy(True), recovery=Recovery(max_backtracks=1))

    async def play():
        async with server.open_session() as session:
            loop = ToolLoop(
                ScriptedLLM([calls("door", ("box.fail", {})), text_reply("gave up")]),
                wrap(session),
                LoopLimits(max_iterations=3),
                FakeTelemetry(),
                lambda: 0.0,
                policy=policy,
            )
            return await loop.run(initial_messages("s", "u"))

    return asyncio.run(play())


def test_a_backtrack_prompt_follows_the_failed_batch_in_the_history():
    outcome = backtracking_run()
    (backtrack,) = outcome.backtracks
    assert [type(m) for m in outcome.messages[2:]] == [
        AssistantToolCalls,
        ToolResultMessage,
        UserMessage,
        AssistantText,
    ]
    assert outcome.messages[4:] == (user_message(backtrack.prompt), AssistantText("gave up"))
    assert "box.fail" in backtrack.prompt and backtrack.call_ids == ("door-1",)


def test_what_a_run_did_before_the_llm_failed_is_kept():
    server = FakeToolServer("box", {"echo": echo})

    async def play():
        async with server.open_session() as session:
            llm = ScriptedLLM([calls("look", ("box.echo", {"text": "a"})), LLMError("down")])
            loop = ToolLoop(llm, session, LoopLimits(), FakeTelemetry(), lambda: 0.0)
            with pytest.raises(LLMError):
                await loop.run(initial_messages("s", "u"))
            return loop.so_far()

    partial = asyncio.run(play())
    assert partial.exit_reason is ExitReason.FAILED
    assert (partial.answer, partial.final_content) == (None, None)
    assert (partial.iterations, partial.llm_calls) == (2, 1)
    assert [r.tool_name for r in partial.tool_chain] == ["box.echo"]
    assert partial.usage == Usage(10, 5)
    assert [type(m) for m in partial.messages] == [
        SystemMessage,
        UserMessage,
        AssistantToolCalls,
        ToolResultMessage,
    ]


class WordlessFailures:
    """A session whose tools fail without a word (an MCP isError result with no text)."""

    def __init__(self, session) -> None:
        self.tools, self.rejected, self.protocols = session.tools, (), session.protocols

    async def call_tool(self, name, arguments, timeout_seconds) -> ToolCallResult:
        return ToolCallResult(is_error=True)


def test_a_tool_that_failed_without_a_message_is_backtracked_from_as_failed():
    (backtrack,) = backtracking_run(WordlessFailures).backtracks
    assert "Tool box.fail failed: failed." in backtrack.prompt


def test_the_llm_time_of_a_run_adds_up_each_llm_calls_own_time():
    outcome, _ = run_ghost_loop([calls("a", ("box.echo", {"text": "hi"})), text_reply("done")])
    # each LLM call reads the clock before and after it: one tick each, two calls
    assert outcome.llm_seconds == pytest.approx(2 * TICK)
