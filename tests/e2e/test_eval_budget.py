"""Budgets for a whole sweep (issue 53), end to end: spawned workers, real Jericho, a real MCP
server per turn, and a provider peer that bills each request by its size. A sweep its budget
stops, resumed after raising it, stores what an unbudgeted sweep stores; `--dry-run` sends
no request; a dollar budget refuses a model no price list knows, before any call."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.sweeps import peer, sweep_args
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.app.cli import main
from zork_mcp.domain.episode.episode import EndReason

pytestmark = pytest.mark.slow
SPEC = ["--name", "budget", "--model", "local:p1-q1", "--model", "local:p1-q0", "--mcp", "on",
        "--episodes", "2", "--max-turns", "12"]  # fmt: skip


def run(tmp_path: Path, results: Path, game: Path, *extra: str) -> tuple[int, int]:
    """The exit code and the requests the provider got."""
    tmp_path.mkdir(exist_ok=True)
    billing = peer()
    billing.count_tokens = True
    with billing.serve() as url:
        code = main(sweep_args(url, tmp_path, results, *SPEC, "--game", str(game), *extra))
    return code, len(billing.requests)


def outcomes(results: Path) -> dict[str, tuple]:
    """What each episode played; its prompt tokens apart (the MCP server's answer, its pid,
    varies in length by a digit or two between runs)."""
    return {
        r.key: (r.cell, r.seed, r.score, r.moves, r.turns, r.end_reason, r.completion_tokens,
                r.tool_calls, r.error, [(t.turn, t.score, t.room) for t in r.trajectory])
        for r in SqliteResultStore(results).episodes("budget")
    }  # fmt: skip


def spent(results: Path) -> int:
    return sum(r.prompt_tokens + r.completion_tokens
               for r in SqliteResultStore(results).episodes("budget"))  # fmt: skip


def test_a_sweep_stopped_by_its_budget_and_resumed_stores_what_an_unbudgeted_one_does(
    tmp_path, zork_game, capsys
):
    clean, budgeted = tmp_path / "clean.sqlite", tmp_path / "budgeted.sqlite"
    assert run(tmp_path / "a", clean, zork_game)[0] == 0
    whole = spent(clean)

    code, _ = run(tmp_path / "b", budgeted, zork_game, "--budget-tokens", str(whole * 45 // 100))
    out = capsys.readouterr().out
    stopped = SqliteResultStore(budgeted).episodes("budget")
    assert code == 0 and spent(budgeted) <= whole * 45 // 100
    assert stopped and all(r.end_reason == EndReason.BUDGET for r in stopped)  # cut short
    assert "left unplayed or stopped by the budget" in out and "--resume" in out
    said = " ".join(out.split())  # as read, however it was wrapped
    assert re.search(r"needed about [\d,]+ tokens at its estimate, with [\d,]+ tokens left", said)
    assert "--budget-tokens" in said and "--budget-usd" not in said  # the budget it has
    assert f"Results: {budgeted}" in out  # and how to read them
    assert f"zork-mcp eval report {budgeted} --sweep budget --html" in out

    code, _ = run(tmp_path / "b", budgeted, zork_game, "--budget-tokens", str(whole * 2),
                  "--resume")  # fmt: skip
    assert code == 0
    assert outcomes(budgeted) == outcomes(clean)
    assert spent(budgeted) == pytest.approx(whole, rel=0.001)


def test_a_dry_run_of_a_sweep_prints_each_cell_and_the_total_and_sends_no_request(
    tmp_path, zork_game, capsys
):
    code, requests = run(tmp_path, tmp_path / "r.sqlite", zork_game, "--dry-run")
    out = capsys.readouterr().out
    assert (code, requests) == (0, 0) and not (tmp_path / "r.sqlite").exists()
    assert "local:p1-q1 mcp=on" in out and "local:p1-q0 mcp=on" in out and "total" in out


def test_a_dollar_budget_refuses_a_model_no_price_list_knows_before_any_call(
    tmp_path, zork_game, capsys
):
    code, requests = run(tmp_path, tmp_path / "r.sqlite", zork_game, "--budget-usd", "1")
    err = capsys.readouterr().err
    assert (code, requests) == (2, 0)
    assert "local:p1-q1" in err and "--budget-tokens" in err
