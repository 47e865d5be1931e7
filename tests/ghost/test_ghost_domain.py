"""MCP-Ghost's policy on the shared loop, over random scripts: backtracking, breaker, result."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from tests.properties.scripts import SERVER, ScriptedModel, box_server, scripts
from zork_mcp.adapters.memory_telemetry import InMemoryTelemetry
from zork_mcp.domain.batch_policy import CallOutcome
from zork_mcp.domain.ghost_result import ghost_result
from zork_mcp.domain.messages import initial_messages
from zork_mcp.domain.recovery import BACKTRACK_PROMPT, CircuitBreaker, Recovery
from zork_mcp.domain.tool_loop import FAILED_OUTCOMES, ExitReason, LoopLimits, ToolLoop
from zork_mcp.ghost.memory import recent_context
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
                InMemoryTelemetry(),
                lambda: next(ticks) * 0.5,
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
    prompts = [
        m
        for m in outcome.messages
        if m["content"] and "previous approach failed" in str(m["content"])
    ]
    assert len(prompts) == len(outcome.backtracks)
    for message in prompts:
        index = outcome.messages.index(message)
        assert message["role"] == "user" and outcome.messages[index - 1]["role"] == "tool"
    assert outcome.answer is None, "a ghost run reads no AgentResponse"


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
    assert "{failures}" in BACKTRACK_PROMPT


@given(scripts)
def test_recent_context_keeps_the_prompts_and_the_last_exchange(script):
    outcome, _, _ = run_ghost(script, Recovery())
    trimmed = recent_context(outcome.messages)
    assert trimmed[:2] == outcome.messages[:2]
    calls = [m for m in trimmed if m.get("tool_calls")]
    assert len(calls) <= 1
    answered = {m["tool_call_id"] for m in trimmed if m["role"] == "tool"}
    asked = {c["id"] for m in calls for c in m["tool_calls"]}
    assert answered == asked, "no tool result without its call, no call without its result"
