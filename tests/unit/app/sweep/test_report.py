"""The report's numbers from known episodes, its CSV and its plots."""

from __future__ import annotations

import csv
import io
import math

from rich.console import Console

from zork_mcp.app.sweep.report import (
    cell_stats,
    difference_rows,
    mcp_differences,
    pooled_differences,
    pooled_rows,
    render,
    write_csv,
    write_plots,
)
from zork_mcp.domain.episode.turn_facts import ToolUse, TurnFacts
from zork_mcp.domain.sweep.records import EpisodeRecord, play_metrics


def episode(mcp: str, index: int, score: int, **rest) -> EpisodeRecord:
    fields = {
        "sweep": "s", "key": f"{mcp}{index}", "cell": f"local:m mcp={mcp}", "model": "local:m",
        "mcp": mcp, "seed": index, "index": index, "status": "done", "score": score,
        "moves": 10, "turns": 4, "prompt_tokens": 100, "completion_tokens": 10,
        "tool_calls": 2 if mcp == "on" else 0,
        "trajectory": tuple(TurnFacts(t, score * t // 4, t, 0) for t in range(1, 5)),
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


def test_the_reports_dollars_read_as_every_other_screen_writes_them():
    """Issue 67: the report wrote `0.7243` where the estimate wrote `$1.57`; every dollar
    amount now has its sign and four decimals."""
    parts = {"cost_input_usd": 1.2, "cost_cached_input_usd": 0.0, "cost_cache_write_usd": 0.0,
             "cost_output_usd": 0.37}  # fmt: skip
    records = [episode("on", 0, 5, cost_usd=1.57, **parts), episode("off", 0, 5, cost_usd=0.7243)]
    console = Console(record=True, width=200)
    render(console, records, "s")
    rows = [[cell.strip() for cell in line.split("│")[1:-1]]
            for line in console.export_text().splitlines() if line.startswith("│ A ")]  # fmt: skip
    assert rows[1][8] == "$1.5700"  # its $ per episode
    assert rows[2] == ["A", "$1.5700", "$1.2000", "$0.0000", "$0.0000", "$0.3700"]  # by part
    assert any("$1.5700 [$1.5700, $1.5700]" in row for row in rows[3:]), "the play table's $"


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
    from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
    from zork_mcp.app.cli import main

    store = SqliteResultStore(tmp_path / "r.sqlite")
    for record in RECORDS:
        store.record(record)
    assert main(["eval", "report", str(tmp_path / "r.sqlite"), "--out", str(tmp_path / "o")]) == 0
    assert "MCP on minus off" in capsys.readouterr().out
    assert {p.name for p in (tmp_path / "o" / "s").iterdir()} == {
        "episodes.csv", "cells.csv", "score_over_turns.png", "final_scores.png",
        "rooms_over_turns.png", "tool_use.png",
    }  # fmt: skip
    assert main(["eval", "report", str(tmp_path / "none.sqlite")]) == 2
    assert "run `zork-mcp eval --results" in capsys.readouterr().err


def test_eval_report_off_a_terminal_lays_its_tables_out_for_80_columns_or_columns(
    tmp_path, capsys, monkeypatch
):
    """Issue 67: `eval report > file` wrote lines of 585 bytes, `--plain` was refused, and at
    80 columns each `n = 2: too few` verdict wrapped over six lines."""
    from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
    from zork_mcp.app.cli import main

    store = SqliteResultStore(tmp_path / "r.sqlite")
    for record in (long_named(mcp, "window", i, 10 * i) for mcp in ("on", "off") for i in (0, 1)):
        store.record(record)
    report = ["eval", "report", str(tmp_path / "r.sqlite"), "--no-plots", "--out", str(tmp_path)]
    for columns, plain in ((None, []), (None, ["--plain"]), ("120", ["--plain"])):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        assert main([*report, *plain]) == 0
        lines = [line for line in capsys.readouterr().out.splitlines()
                 if not line.startswith("wrote ")]  # a list of paths, never broken  # fmt: skip
        width = int(columns or 80)
        assert max(map(len, lines)) <= width and "…" not in "\n".join(lines)
        verdicts = [line for line in lines if "│ final score │" in line and "too few" in line]
        assert verdicts and all(line.endswith(" │ n = 2: too few │") for line in verdicts)
    assert max(map(len, lines)) > 80, "a wider screen gets wider tables"


def played(mcp: str, index: int, turns: list[TurnFacts], **rest) -> EpisodeRecord:
    """An episode whose row holds what its turns add up to, as a sweep stores it."""
    last = turns[-1]
    return episode(
        mcp, index, last.score, turns=len(turns), trajectory=tuple(turns),
        **play_metrics(turns).fields(), **rest,
    )  # fmt: skip


def turn(n: int, score: int, room: str, **rest) -> TurnFacts:
    return TurnFacts(n, score, n, 0, room=room, **rest)


GRUE = [
    turn(1, 25, "Cellar", llm_seconds=1.0),
    turn(2, 15, "Forest", died=True, llm_seconds=3.0),  # Zork takes 10 points a death
    turn(3, 15, "Forest", valid=False, llm_seconds=2.0),
    turn(4, 15, "Clearing", llm_seconds=10.0, tools=(ToolUse("game.memory", 2, 1),)),
]
WANDER = [turn(1, 0, "North of House"), turn(2, 0, "North of House", valid=False)]


def test_each_cell_reports_its_play_per_episode_with_cis():
    records = [played("on", 0, GRUE, cost_usd=0.5), played("on", 1, GRUE, cost_usd=1.5)]
    records += [played("off", 0, WANDER), played("off", 1, WANDER)]
    on, off = cell_stats(records)
    metric = {name: estimate.value for name, estimate in on.metrics.items()}
    assert (metric["final_score"], metric["best_score"], metric["deaths"]) == (15, 25, 1)
    assert math.isclose(metric["normalized_score"], 15 / 350)
    assert (metric["rooms"], metric["invalid_rate"], metric["cost_usd"]) == (3, 0.25, 1.0)
    assert (metric["tokens"], metric["latency_p50"]) == (110, 2.5)
    assert math.isclose(metric["latency_p95"], 3.0 + 0.85 * 7.0)  # numpy's linear quantile
    assert on.tool_use == (ToolUse("game.memory", 4, 2),)
    assert (off.metrics["rooms"].value, off.metrics["invalid_rate"].value) == (1, 0.5)
    assert math.isnan(off.metrics["latency_p50"].value), "no LLM call was timed"
    rooms = [d for d in mcp_differences(records) if d.metric == "rooms"]
    assert [(d.mcp, d.difference.value) for d in rooms] == [("on", 2)]


def test_a_row_stored_before_the_play_metrics_is_left_out_of_them_not_counted_as_zero():
    old = episode("on", 5, 40)  # best_score, deaths, rooms... None, as a migrated row
    on = cell_stats([played("on", 0, GRUE), old])[0]
    assert on.episodes == 2 and on.metrics["final_score"].value == (15 + 40) / 2
    assert (on.metrics["deaths"].value, on.metrics["rooms"].value) == (1, 3)


def test_the_report_prints_the_play_table_and_the_rooms_difference():
    console = Console(record=True, width=250)
    records = [played("on", i, GRUE) for i in range(2)] + [
        played("off", i, WANDER) for i in range(2)
    ]
    render(console, records, "s")
    text = console.export_text()
    assert "play per cell" in text and "rooms visited" in text and "invalid commands / turn" in text
    assert "0.250" in text and "0.500" in text


def in_history(mode: str, mcp: str, index: int, score: int, **rest) -> EpisodeRecord:
    return episode(mcp, index, score, key=f"{mode}{mcp}{index}", history=mode,
                   cell=f"local:m mcp={mcp} history={mode}", setup=f"history {mode}; ...",
                   **rest)  # fmt: skip


def test_mcp_on_is_set_against_off_within_each_history_mode():
    records = [in_history("window", "on", i, s) for i, s in enumerate([20, 30])]
    records += [in_history("window", "off", i, s) for i, s in enumerate([0, 10])]
    records += [in_history("state", "on", i, s) for i, s in enumerate([5, 5])]
    records += [in_history("state", "off", i, s) for i, s in enumerate([5, 5])]
    found = {d.group: d.difference.value for d in mcp_differences(records, ["final_score"])}
    assert found == {"local:m history=window": 20, "local:m history=state": 0}
    console = Console(record=True, width=250)
    render(console, records, "s")
    assert "local:m history=window" in console.export_text()


ROUNDS = [turn(1, 0, "North"), turn(2, 0, "West"), turn(3, 0, "North"),
          turn(4, 0, "North", repeated=True)]  # fmt: skip


def test_the_memory_metrics_are_in_their_table_with_their_meanings_and_in_the_csv(tmp_path):
    records = [played("on", i, ROUNDS, setup="history state; no MCP") for i in range(2)]
    records += [played("off", i, WANDER) for i in range(2)]
    on, off = cell_stats(records)
    assert (on.metrics["rooms_revisited"].value, on.metrics["return_turns"].value) == (1, 2)
    assert (on.metrics["repeated_rate"].value, off.metrics["rooms_revisited"].value) == (0.25, 0)
    assert math.isnan(off.metrics["return_turns"].value), "no room was come back to"
    revisits = [d for d in mcp_differences(records) if d.metric == "rooms_revisited"]
    assert [(d.mcp, d.difference.value) for d in revisits] == [("on", 1)]
    console = Console(record=True, width=250)
    render(console, records, "s")
    text = console.export_text()
    assert "memory per cell" in text and "history state; no MCP" in text
    assert "rooms revisited: rooms entered again after leaving them" in text
    episodes, cells = write_csv(records, tmp_path)
    [first, *_] = csv.DictReader(episodes.open())
    assert (first["rooms_revisited"], first["return_turns"], first["repeated_rate"]) == (
        "1", "2.0", "0.25",
    )  # fmt: skip
    assert (first["setup"], first["repeated_commands"]) == ("history state; no MCP", "1")
    [on_row, _] = csv.DictReader(cells.open())
    assert (on_row["setup"], float(on_row["rooms_revisited_high"])) == ("history state; no MCP", 1)


LONG_MODEL = "openrouter:meta-llama/llama-3.1-405b-instruct"
LONG_SETUP = "history window of 8 turns; MCP servers reasoning, memory (12 tools offered)"


def long_named(mcp: str, history: str, index: int, score: int, **rest) -> EpisodeRecord:
    cell = f"{LONG_MODEL} mcp={mcp} history={history}"
    return episode(mcp, index, score, key=f"{history}{mcp}{index}", model=LONG_MODEL,
                   history=history, cell=cell, setup=LONG_SETUP, **rest)  # fmt: skip


def test_at_80_columns_every_table_fits_and_no_header_or_label_is_cut():
    """Issue 55: at 80 columns headers read `loca…`, `epis…`, `fail…` and each cell's label
    wrapped over 10+ lines. Cells are now named by key with a legend; a table too wide is
    split between columns."""
    records = [
        long_named(mcp, history, i, 10 * i + (5 if mcp == "on" else 0), cost_usd=0.0123)
        for mcp in ("on", "off") for history in ("window", "state") for i in range(3)
    ]  # fmt: skip
    records.append(long_named("off", "state", 9, 0, status="failed", error="LLMError: 429"))
    out = io.StringIO()
    render(Console(file=out, width=80), records, "Sweep")  # a record would crop at 80
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    text = "\n".join(lines)
    assert "…" not in text
    words = {word for line in lines for word in line.replace("│", " ").split()}
    headers = ["episodes", "failed", "median", "moves", "tools/turn", "total", "output"]
    headers += ["in/out/cached", "difference", "excludes", "visited", "revisited", "p95"]
    assert set(headers) <= words, set(headers) - words
    legend = [line for line in lines if line.startswith("│ A ")]
    assert legend and LONG_MODEL in legend[0]
    labels = lines.index(legend[0]), next(i for i, s in enumerate(lines) if s.startswith("│ B "))
    assert labels[1] - labels[0] <= 4, "a cell's label and set-up in a few lines, not 10+"
    assert "│ 15.0 [5.0, 25.0] │" in text, "a CI is never wrapped"


def in_game(game: str, most: int, mcp: str, index: int, score: int) -> EpisodeRecord:
    cell = f"local:m mcp={mcp} game={game}"
    return episode(mcp, index, score, key=f"{game}{mcp}{index}", cell=cell, game=game,
                   max_score=most)  # fmt: skip


# MCP adds 40 of Zork I's 350 points and 1 of Zork III's 7: on the final score the games
# cannot be put together; over each game's maximum, MCP on adds 40/350 and 1/7.
GAMES = [
    *(in_game("zork1", 350, "on", i, s) for i, s in enumerate([40, 60, 80])),
    *(in_game("zork1", 350, "off", i, s) for i, s in enumerate([0, 20, 40])),
    *(in_game("zork3", 7, "on", i, s) for i, s in enumerate([1, 2, 3])),
    *(in_game("zork3", 7, "off", i, s) for i, s in enumerate([0, 1, 2])),
]


def test_over_several_games_mcp_on_minus_off_is_per_game_and_pooled_on_the_normalised_score():
    per_game = {(d.game, d.metric): d.difference.value for d in mcp_differences(GAMES)}
    assert per_game[("zork1", "final_score")] == 40 and per_game[("zork3", "final_score")] == 1
    [pooled] = pooled_differences(GAMES)
    assert (pooled.game, pooled.metric, pooled.model, pooled.mcp) == (
        None, "normalized_score", "local:m", "on",
    )  # fmt: skip
    assert math.isclose(pooled.difference.value, (40 / 350 + 1 / 7) / 2)
    [row] = pooled_rows(GAMES)
    assert (row.treated, row.control) == (6, 6)
    assert [(r.difference.game, r.treated) for r in difference_rows(GAMES)][:1] == [("zork1", 3)]
    assert pooled_differences([r for r in GAMES if r.game == "zork1"]) == []


def test_the_report_of_several_games_has_each_games_tables_and_the_pooled_difference():
    console = Console(record=True, width=200)
    render(console, GAMES, "s")
    text = console.export_text()
    assert "s: games" in text and "Zork I" in text and "Zork III" in text
    assert "s, Zork I: MCP on minus off" in text and "s, Zork III: MCP on minus off" in text
    pooled = text.split("pooled over the games")[1]
    assert "final score / maximum" in pooled and f"{(40 / 350 + 1 / 7) / 2:.3f}" in pooled
    assert "only the normalised score pools" in " ".join(text.split())  # as wrapped


def test_the_report_of_one_game_has_no_games_table_and_no_pooled_difference():
    console = Console(record=True, width=200)
    render(console, RECORDS, "s")
    text = console.export_text()
    assert "s: games" not in text and "pooled" not in text
    assert "MCP on minus off (95% bootstrap CI)" in text and "s: score per cell" in text


def test_cells_csv_names_each_cells_game_and_episodes_csv_each_rows_maximum(tmp_path):
    episodes, cells = write_csv(GAMES, tmp_path)
    rows = list(csv.DictReader(cells.open()))
    assert [row["game"] for row in rows] == ["zork1", "zork1", "zork3", "zork3"]
    assert float(rows[2]["normalized_score"]) == 2 / 7
    stored = list(csv.DictReader(episodes.open()))
    assert {(row["game"], row["max_score"]) for row in stored} == {("zork1", "350"), ("zork3", "7")}
