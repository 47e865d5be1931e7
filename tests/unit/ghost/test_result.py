"""MCP-Ghost's result from hand-made runs: recovery actions, errors, summary, timings."""

from __future__ import annotations

import copy
import json
import pickle
from dataclasses import replace

import pytest

from zork_mcp.domain.llm.messages import Usage
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.loop.loop_records import Backtrack, ExitReason, LoopOutcome, ToolCallRecord
from zork_mcp.domain.loop.recovery import Failure, backtrack_prompt
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.ghost.result import (
    BACKTRACKED,
    CIRCUIT_OPENED,
    GhostAnswerReader,
    GhostResultDict,
    failed_run,
    ghost_result,
    recovery_action,
)


def record(call_id: str, outcome: CallOutcome, *, error: str | None = "boom", **rest):
    result = (
        ToolCallResult.success("ok")
        if outcome is CallOutcome.SUCCEEDED
        else ToolCallResult(is_error=True, error_message=error)
    )
    return ToolCallRecord(1, call_id, rest.pop("tool", "s.t"), {}, outcome, result, **rest)


def run(records, *, reason=ExitReason.CONTENT, content="done", backtracks=()):
    return LoopOutcome(
        answer=GhostAnswerReader().read(content),
        iterations=2,
        llm_calls=3,
        exit_reason=reason,
        tool_chain=tuple(records),
        usage=Usage(7, 3),
        final_content=content,
        messages=(),
        backtracks=tuple(backtracks),
    )


def result_of(outcome, max_iterations=5):
    return ghost_result(
        outcome,
        tools_discovered=2,
        servers_connected=1,
        elapsed_seconds=0.123456789,
        max_iterations=max_iterations,
    )


def test_each_failure_gets_the_recovery_that_followed_it():
    backtracked = frozenset({"b"})
    assert recovery_action(record("b", CallOutcome.TOOL_ERROR), backtracked) == BACKTRACKED
    opened = record("o", CallOutcome.TOOL_ERROR, opened_circuit=True)
    assert recovery_action(opened, backtracked) == CIRCUIT_OPENED
    expected = {
        CallOutcome.TIMED_OUT: "the rest of the batch was skipped; the LLM chose what next",
        CallOutcome.SESSION_BROKEN: "tool use stopped; the LLM was asked for its final answer",
        CallOutcome.CIRCUIT_OPEN: "not called: the tool's circuit is open",
        CallOutcome.SKIPPED: "not run: an earlier call ended the batch",
        CallOutcome.TOOL_ERROR: "reported to the LLM in the tool result",
        CallOutcome.BAD_ARGUMENTS: "reported to the LLM in the tool result",
        CallOutcome.UNKNOWN_TOOL: "reported to the LLM in the tool result",
    }
    for outcome, text in expected.items():
        assert recovery_action(record("x", outcome), backtracked) == text


def test_the_summary_counts_calls_tools_and_backtracks():
    records = [
        record("1", CallOutcome.SUCCEEDED, tool="a.x"),
        record("2", CallOutcome.TOOL_ERROR, tool="a.y"),
        record("3", CallOutcome.SKIPPED, tool="a.z"),
    ]
    result = result_of(run(records, backtracks=[Backtrack(1, ("2",), "p")]))
    assert result.summary == (
        "Completed in 2 iteration(s): 2 tool call(s) to 2 tool(s), 1 succeeded, 1 failed, "
        "1 backtrack(s). Answer: done"
    )
    assert result.execution_metadata.total_execution_time == 0.123457
    assert result.execution_metadata.token_usage.total_tokens == 10
    assert (
        result.execution_metadata.tools_discovered,
        result.execution_metadata.servers_connected,
    ) == (2, 1)


def test_a_long_answer_is_shortened_in_the_summary_only():
    answer = "x" * 201
    result = result_of(run([], content=answer))
    assert result.summary.endswith("Answer: " + "x" * 197 + "...")
    assert result.final_result == answer
    exact = result_of(run([], content="y" * 200))
    assert exact.summary.endswith("Answer: " + "y" * 200)


def test_max_iterations_is_an_error_of_the_run():
    result = result_of(run([], reason=ExitReason.MAX_ITERATIONS), max_iterations=4)
    (error,) = result.errors
    assert error.model_dump() == {
        "iteration": 2,
        "tool_name": None,
        "error": "max_iterations (4) reached with tool calls still coming",
        "recovery_action": "the LLM was asked for a final answer without tools",
    }
    assert not result.success
    assert result.summary.startswith("Ended without completing (max_iterations) in 2 iteration(s)")


def test_a_failure_without_a_message_still_says_it_failed():
    result = result_of(run([record("1", CallOutcome.TOOL_ERROR, error=None)]))
    assert result.errors[0].error == "failed"


def test_a_failed_run_keeps_microsecond_timing():
    result = failed_run(
        "x", elapsed_seconds=0.123456789, servers_connected=0, conversation_so_far=[]
    )
    assert result.execution_metadata.total_execution_time == 0.123457


def test_the_backtrack_prompt_lists_every_failure():
    prompt = backtrack_prompt([Failure("a.b", "boom"), Failure("c.d", "bad input")])
    assert prompt == (
        "The previous approach failed. Tool a.b failed: boom; Tool c.d failed: bad input. "
        "Please try a different approach."
    )


def test_the_result_is_the_documented_dict_with_the_typed_model_kept():
    typed = result_of(run([record("1", CallOutcome.SUCCEEDED, tool="a.x")]))
    result = GhostResultDict(typed)
    assert isinstance(result, dict) and result == typed.model_dump()
    assert result["tool_chain"][0]["tool_name"] == "a.x" and result["success"] is True
    assert json.loads(json.dumps(result)) == typed.model_dump(mode="json")
    assert result.typed is typed and result.summary == typed.summary
    assert result.execution_metadata.token_usage.total_tokens == 10
    assert copy.deepcopy(result) == result and pickle.loads(pickle.dumps(result)).typed == typed
    with pytest.raises(AttributeError):
        _ = result.no_such_field


def test_a_run_that_failed_after_tools_ran_keeps_its_chain_usage_and_errors():
    failed = record("2", CallOutcome.TOOL_ERROR, tool="a.y")
    partial = replace(
        run([record("1", CallOutcome.SUCCEEDED, tool="a.x"), failed]),
        exit_reason=ExitReason.FAILED,
        final_content=None,
    )
    result = failed_run(
        "HTTP 500 from the provider",
        elapsed_seconds=1.0,
        servers_connected=2,
        conversation_so_far=[],
        tools_discovered=4,
        partial=partial,
    )
    meta = result.execution_metadata
    assert [e.tool_name for e in result.tool_chain] == ["a.x", "a.y"]
    assert (meta.total_iterations, meta.tools_discovered, meta.servers_connected) == (2, 4, 2)
    assert (meta.token_usage.total_tokens, meta.success_rate) == (10, 50.0)
    assert [(e.tool_name, e.error) for e in result.errors] == [
        ("a.y", "boom"),
        (None, "HTTP 500 from the provider"),
    ]
    assert result.errors[-1].iteration == 2 and not result.success
    assert result.summary == (
        "Failed before an answer after 2 tool call(s) in 2 iteration(s): HTTP 500 from the provider"
    )
