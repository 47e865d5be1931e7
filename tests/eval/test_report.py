"""The report's numbers from known episodes, its CSV and its plots."""

from __future__ import annotations

import csv
import math

from rich.console import Console

from zork_mcp.app.eval.report import cell_stats, mcp_differences, render, write_csv, write_plots
from zork_mcp.evaluation.records import EpisodeRecord, TurnPoint


def episode(mcp: str, index: int, score: int, **rest) -> EpisodeRecord:
    fields = {
        "sweep": "s", "key": f"{mcp}{index}", "cell": f"local:m mcp={mcp}", "model": "local:m",
        "mcp": mcp, "seed": index, "index": index, "status": "done", "score": score,
        "moves": 10, "turns": 4, "prompt_tokens": 100, "completion_tokens": 10,
        "tool_calls": 2 if mcp == "on" else 0,
        "trajectory": tuple(TurnPoint(t, score * t // 4, t, 0) for t in range(1, 5)),
    }  # fmt: skip
    return EpisodeRecord(**(fields | rest))


RECORDS = [
    *(episode("on", i, s, cost_usd=0.01) for i, s in enumerate([10, 20, 30, 40])),
    *(episode("off", i, s) for i, s in enumerate([0, 5, 10])),
    episode("off", 9, 0, status="failed", error="LLMError: 429", moves=0, turns=0),
]


def test_cells_report_finished_episodes_and_count_failures_apart():
    on, off = cell_stats(RECORDS)
    assert (on.episodes, on.failures, on.mean_score.value, on.median_score) == (4, 0, 25, 25)
    assert (on.max_score, on.cost_usd, on.tool_calls_per_turn) == (40, 0.01, 0.5)
    assert (off.episodes, off.failures, off.mean_score.value, off.cost_usd) == (4, 1, 5, None)
    assert off.mean_score.low <= 5 <= off.mean_score.high and off.tokens_in == 100


def test_the_mcp_difference_is_on_minus_off_per_model():
    [difference] = mcp_differences(RECORDS)
    assert (difference.model, difference.mcp) == ("local:m", "on")
    assert difference.difference.value == 20 and not difference.difference.includes(0)
    assert mcp_differences([r for r in RECORDS if r.mcp == "on"]) == []


def test_the_report_prints_every_cell_and_the_difference(tmp_path):
    console = Console(record=True, width=200)
    render(console, RECORDS, "s")
    text = console.export_text()
    assert "local:m mcp=on" in text and "25.0 [" in text and "20.0 [" in text


def test_csv_has_one_row_per_episode_and_per_cell_and_plots_are_pngs(tmp_path):
    episodes, cells = write_csv(RECORDS, tmp_path)
    rows = list(csv.DictReader(episodes.open()))
    assert len(rows) == len(RECORDS) and rows[-1]["error"] == "LLMError: 429"
    cell_rows = list(csv.DictReader(cells.open()))
    assert [r["cell"] for r in cell_rows] == ["local:m mcp=on", "local:m mcp=off"]
    assert math.isclose(float(cell_rows[0]["mean_score"]), 25)
    for png in write_plots(RECORDS, tmp_path):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size < 100_000


def test_eval_report_reads_a_results_file_and_writes_csv_and_plots_per_sweep(tmp_path, capsys):
    from zork_mcp.adapters.sqlite_results import SqliteResultStore
    from zork_mcp.app.cli import main

    store = SqliteResultStore(tmp_path / "r.sqlite")
    for record in RECORDS:
        store.record(record)
    assert main(["eval", "report", str(tmp_path / "r.sqlite"), "--out", str(tmp_path / "o")]) == 0
    assert "MCP on minus off" in capsys.readouterr().out
    assert {p.name for p in (tmp_path / "o" / "s").iterdir()} == {
        "episodes.csv", "cells.csv", "score_over_turns.png", "final_scores.png",
    }  # fmt: skip
    assert main(["eval", "report", str(tmp_path / "none.sqlite")]) == 2
    assert "run `zork-mcp eval --results" in capsys.readouterr().err
