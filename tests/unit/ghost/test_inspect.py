"""The golden inspector prints what a reader needs: the token line, each error, each retry."""

from __future__ import annotations

import io

from rich.console import Console

from tests.support.golden_scenarios import GOLDENS
from zork_mcp.ghost.goldens import load_golden
from zork_mcp.ghost.inspect import inspect_golden


def printed(golden) -> list[str]:
    out = io.StringIO()
    inspect_golden(golden, Console(file=out, width=400, color_system=None))
    return out.getvalue().splitlines()


def chain_rows(lines: list[str]) -> list[list[str]]:
    rows = [line for line in lines if line.startswith("│")]
    return [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]


def test_the_token_line_has_the_recorded_usage_and_request_count():
    golden = load_golden(GOLDENS / "anthropic" / "max_iterations.json")
    usage = golden["golden_output"]["execution_metadata"]["token_usage"]
    expected = (
        f"tokens: prompt={usage['prompt_tokens']} completion={usage['completion_tokens']} "
        f"total={usage['total_tokens']}  provider requests={len(golden['provider_responses'])}"
    )
    assert expected in printed(golden)


def test_each_error_is_printed_with_its_iteration_tool_and_recovery():
    golden = load_golden(GOLDENS / "gemini" / "error_recovery_backtracking.json")
    lines = printed(golden)
    for error in golden["golden_output"]["errors"]:
        text = " ".join(error["error"].split())[:40]
        head = f"  iteration {error['iteration']} {error['tool_name']}: {text}"
        at = next(i for i, line in enumerate(lines) if line.startswith(head))
        assert lines[at + 1].strip() == f"-> {error['recovery_action']}"


def test_a_run_error_is_printed_as_the_run_s_own():
    golden = load_golden(GOLDENS / "openai" / "max_iterations.json")
    run_error = golden["golden_output"]["errors"][-1]
    assert f"  iteration {run_error['iteration']} (run): {run_error['error']}" in printed(golden)


def test_the_chain_table_shows_iteration_tool_outcome_and_retry_attempt():
    golden = load_golden(GOLDENS / "gemini" / "error_recovery_backtracking.json")
    rows = chain_rows(printed(golden))
    chain = golden["golden_output"]["tool_chain"]
    assert [(r[0], r[1], r[3], r[4]) for r in rows] == [
        (
            str(e["iteration"]),
            e["tool_name"],
            "yes" if e["success"] else "no",
            str(e["retry_attempt"]),
        )
        for e in chain
    ]
    assert [e["retry_attempt"] for e in chain] == [0, 0, 1], "the golden holds a retry"
