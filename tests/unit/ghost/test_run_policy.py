"""MCP-Ghost's policy on the shared loop, over random scripts: backtracking, breaker, result."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from tests.support.scripts import SERVER, ScriptedModel, box_server, scripts
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    initial_messages,
    to_openai_dict,
)
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.loop.loop_policy import FAILED_OUTCOMES, LoopLimits
from zork_mcp.domain.loop.loop_records import ExitReason
from zork_mcp.domain.loop.recovery import BACKTRACK_PROMPT, CircuitBreaker, Recovery
from zork_mcp.domain.loop.tool_loop import ToolLoop
from zork_mcp.ghost.memory import recent_context
from zork_mcp.ghost.result import BACKTRACKED, failed_run, ghost_result
from zork_mcp.ghost.run import ghost_policy


def run_ghost(script, recovery: Recovery):
    server, model = box_server(), ScriptedModel(script)
    policy = dataclasses.replace(ghost_policy(True), recovery=recovery)
    ticks = itertools.count()

    async def turn():
        async with server.open_session() as session:
            loop = ToolLoop(
                model.llm,
                session,
                LoopLimits(script.max_iterations, 0.02),
                FakeTelemetry(),
                lambda: next(ticks) * 0.1234567891,
                policy=policy,
            )
            return await loop.run(initial_messages("s", "u"))

    return asyncio.run(turn()), server, model


recoveries = st.builds(Recovery, st.integers(0, 4), st.none() | st.integers(1, 3))


@given(scripts, recoveries)
def test_backtracks_follow_failed_batches_and_are_bounded(script, recovery):
    outcome, _, _ = run_ghost(script, recovery)
    assert len(outcome.backtracks) <= recovery.max_backtracks
    failed_iterations = {r.iteration for r in outcome.tool_chain if r.outcome in FAILED_OUTCOMES}
    assert {b.iteration for b in outcome.backtracks} <= failed_iterations
    if recovery.max_backtracks > len(failed_iterations - {None}):
        broke = outcome.exit_reason is ExitReason.SESSION_BROKEN
        assert len(outcome.backtracks) >= len(failed_iterations) - (1 if broke else 0)
    contents = [to_openai_dict(m)["content"] for m in outcome.messages]
    prompts = [
        m
        for m, content in zip(outcome.messages, contents, strict=True)
        if content and "previous approach failed" in str(content)
    ]
    assert len(prompts) == len(outcome.backtracks)
    for message in prompts:
        index = outcome.messages.index(message)
        assert isinstance(message, UserMessage)
        assert isinstance(outcome.messages[index - 1], ToolResultMessage)
    assert outcome.answer == (outcome.final_content or "").strip(), "a ghost run reads free text"


@given(scripts, st.integers(1, 3))
def test_an_open_circuit_is_never_called(script, threshold):
    outcome, server, _ = run_ghost(script, Recovery(0, threshold))
    in_a_row = 0
    for call in server.calls:
        if call.name == f"{SERVER}.fail":
            in_a_row += 1
            assert in_a_row <= threshold
    opened = [r for r in outcome.tool_chain if r.outcome is CallOutcome.CIRCUIT_OPEN]
    assert all("circuit open" in r.result.error_message for r in opened)


@given(scripts, recoveries)
def test_the_result_accounts_for_every_call_and_token(script, recovery):
    outcome, _, model = run_ghost(script, recovery)
    result = ghost_result(
        outcome, tools_discovered=4, servers_connected=1, elapsed_seconds=1.0, max_iterations=5
    )
    assert len(result.tool_chain) == len(outcome.tool_chain)
    assert 0.0 <= result.execution_metadata.success_rate <= 100.0
    tool_errors = [e for e in result.errors if e.tool_name is not None]
    assert len(tool_errors) == sum(not entry.success for entry in result.tool_chain)
    assert all(e.recovery_action for e in result.errors)
    usage = result.execution_metadata.token_usage
    assert usage.prompt_tokens == 100 * len(model.responses)
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert result.success == (
        bool(outcome.final_content and outcome.final_content.strip())
        and outcome.exit_reason not in (ExitReason.MAX_ITERATIONS, ExitReason.SESSION_BROKEN)
    )
    json.dumps(result.model_dump())


def test_the_breaker_counts_failures_in_a_row_per_tool():
    breaker = CircuitBreaker(2)
    assert not breaker.record("a", succeeded=False) and breaker.allows("a")
    assert not breaker.record("b", succeeded=False)
    assert breaker.record("a", succeeded=False) and not breaker.allows("a")
    assert breaker.allows("b") and not breaker.record("b", succeeded=True)
    assert CircuitBreaker(None).allows("anything")
    reset = CircuitBreaker(2)
    reset.record("t", succeeded=False)
    reset.record("t", succeeded=True)
    assert not reset.record("t", succeeded=False) and reset.allows("t"), "a success resets"
    assert "{failures}" in BACKTRACK_PROMPT


@given(scripts)
def test_recent_context_keeps_the_prompts_and_the_last_exchange(script):
    outcome, _, _ = run_ghost(script, Recovery())
    trimmed = recent_context(outcome.messages)
    assert trimmed[:2] == outcome.messages[:2]
    calls = [m for m in trimmed if isinstance(m, AssistantToolCalls)]
    assert len(calls) <= 1
    answered = {m.tool_call_id for m in trimmed if isinstance(m, ToolResultMessage)}
    asked = {c.id for m in calls for c in m.calls}
    assert answered == asked, "no tool result without its call, no call without its result"


def conversation_entry(message) -> dict:
    """One message as the result's conversation_history holds it (spec 004), written out."""
    entry = {"role": None, "content": None, "tool_calls": None, "tool_call_id": None}
    match message:
        case SystemMessage(text):
            entry.update(role="system", content=text)
        case UserMessage(text):
            entry.update(role="user", content=text)
        case AssistantText(text):
            entry.update(role="assistant", content=text)
        case AssistantToolCalls(calls, preamble):
            wire = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in calls
            ]
            entry.update(role="assistant", content=preamble, tool_calls=wire)
        case ToolResultMessage(call_id, result):
            entry.update(role="tool", content=result.to_json(), tool_call_id=call_id)
    return entry


def failures_before(records, index) -> int:
    """An independent count: this tool's failed runs in a row just before call `index`."""
    count = 0
    for record in reversed(records[:index]):
        if record.tool_name != records[index].tool_name or record.outcome is CallOutcome.SKIPPED:
            continue
        if not record.result.is_error:
            break
        count += 1
    return count


@given(scripts, recoveries)
def test_the_result_mirrors_the_run_field_by_field(script, recovery):
    outcome, _, _ = run_ghost(script, recovery)
    result = ghost_result(
        outcome,
        tools_discovered=4,
        servers_connected=1,
        elapsed_seconds=1.23456789,
        max_iterations=9,
    )
    records = outcome.tool_chain
    for index, (entry, record) in enumerate(zip(result.tool_chain, records, strict=True)):
        assert entry.tool_name == record.tool_name and entry.iteration == record.iteration
        assert entry.arguments == dict(record.arguments or {})
        assert entry.success is not record.result.is_error
        assert entry.result == record.result.to_dict()["content"]
        assert entry.error == record.result.error_message
        assert entry.execution_time == round(record.duration_seconds, 6)
        assert entry.reasoning == (record.reasoning or "")
        assert entry.retry_attempt == failures_before(records, index)
    assert [m.model_dump() for m in result.conversation_history] == [
        conversation_entry(m) for m in outcome.messages
    ]
    ran = [r for r in records if r.outcome not in (CallOutcome.SKIPPED, CallOutcome.CIRCUIT_OPEN)]
    good = sum(r.outcome is CallOutcome.SUCCEEDED for r in ran)
    expected_rate = round(100 * good / len(ran), 2) if ran else 100.0
    assert result.execution_metadata.success_rate == expected_rate
    assert result.execution_metadata.total_execution_time == 1.234568
    answer = (outcome.final_content or "").strip()
    assert result.final_result == (answer or None)
    assert f"in {outcome.iterations} iteration(s): {len(ran)} tool call(s)" in result.summary
    assert result.summary.startswith("Completed" if result.success else "Ended without completing")
    assert (f"Answer: {answer[:20]}" in result.summary) == bool(answer)
    backtracked = {i for b in outcome.backtracks for i in b.call_ids}
    failed = [r for r in records if r.result.is_error]
    for error, record in zip(result.errors, failed, strict=False):
        assert error.error == record.result.error_message
        assert (record.call_id in backtracked) == (error.recovery_action == BACKTRACKED)
    if outcome.exit_reason is ExitReason.MAX_ITERATIONS:
        assert (
            result.errors[-1].tool_name is None and "max_iterations (9)" in result.errors[-1].error
        )


def test_a_failed_run_says_why_and_keeps_the_prompts():
    messages = [SystemMessage("s"), UserMessage("u")]
    result = failed_run(
        "server x did not start",
        elapsed_seconds=0.5,
        servers_connected=0,
        conversation_so_far=messages,
    )
    assert result.model_dump() == {
        "success": False,
        "final_result": None,
        "summary": "Failed before an answer: server x did not start",
        "tool_chain": [],
        "conversation_history": [
            {"role": "system", "content": "s", "tool_calls": None, "tool_call_id": None},
            {"role": "user", "content": "u", "tool_calls": None, "tool_call_id": None},
        ],
        "errors": [
            {
                "iteration": 0,
                "tool_name": None,
                "error": "server x did not start",
                "recovery_action": None,
            }
        ],
        "execution_metadata": {
            "total_execution_time": 0.5,
            "total_iterations": 0,
            "tools_discovered": 0,
            "servers_connected": 0,
            "backtrack_count": 0,
            "success_rate": 100.0,
            "token_usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        },
    }
