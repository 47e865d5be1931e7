"""`zork-mcp eval` end to end: spawned workers play real Jericho episodes against a scripted
LLM over local HTTP (tests/support/eval_peers.py) whose play is better when tools are offered,
with a real MCP server process per turn; the stored results and the report's statistics."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.eval_peers import WALKTHROUGH, WalkthroughPeer
from tests.support.llm_peers import HttpFault, peer_for
from tests.support.processes import as_from_a_terminal, processes_with_environment
from tests.support.sweeps import peer, stored, sweep_args, untimed, wait_for_rows
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.app.cli import main
from zork_mcp.app.sweep.report import cell_stats, mcp_differences

pytestmark = pytest.mark.slow


def test_tools_that_help_show_a_difference_whose_ci_excludes_zero_and_equal_play_does_not(
    tmp_path, zork_game, capsys
):
    results = tmp_path / "results.sqlite"
    models = ["--model", "local:p0.9-q0.1", "--model", "local:p0.5-q0.5"]
    with peer().serve() as url:
        code = main(
            sweep_args(url, tmp_path, results, *models, "--episodes", "5", "--max-turns", "10",
                       "--game", str(zork_game))
        )  # fmt: skip
    records = SqliteResultStore(results).episodes("sweep")
    assert code == 0 and len(records) == 20 and not any(r.failed for r in records)
    differences = {d.model: d.difference for d in mcp_differences(records, ["final_score"])}
    helps, same = differences["local:p0.9-q0.1"], differences["local:p0.5-q0.5"]
    assert helps.value > 0 and not helps.includes(0)
    assert same.includes(0)
    stats = {s.cell: s for s in cell_stats(records)}
    assert stats["local:p0.9-q0.1 mcp=on"].tool_calls_per_turn > 0
    assert stats["local:p0.9-q0.1 mcp=off"].tool_calls_per_turn == 0
    assert all(r.cost_usd and r.cost_usd > 0 and r.prompt_tokens > 0 for r in records)
    assert all([p.turn for p in r.trajectory] == list(range(1, 11)) for r in records)
    assert all(r.trajectory[-1].score == r.score for r in records)
    out = capsys.readouterr().out
    assert "MCP on minus off" in out and (tmp_path / "sweep" / "score_over_turns.png").is_file()


def test_a_sweep_killed_mid_way_resumes_to_the_results_of_a_clean_run(tmp_path, zork_game):
    killed, clean = tmp_path / "killed.sqlite", tmp_path / "clean.sqlite"
    models = ["--model", "local:p1-q1", "--model", "local:p1-q0"]
    spec = ["--name", "resume", *models, "--mcp", "off", "--episodes", "6", "--max-turns", "20",
            "--game", str(zork_game)]  # fmt: skip
    with peer().serve() as url:
        command = [sys.executable, "-m", "zork_mcp.app", *sweep_args(url, tmp_path, killed, *spec)]
        temp = tmp_path / "tmp"
        temp.mkdir()
        sweep = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL,
                                 env={**os.environ, "TMPDIR": str(temp)})  # fmt: skip
        rows = wait_for_rows(killed, sweep)
        os.killpg(sweep.pid, signal.SIGKILL)  # the whole group: the sweep and its workers
        sweep.wait()
        assert 0 < rows < 12, "the sweep must be killed mid-way"
        deadline = time.monotonic() + 5
        while list(temp.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert list(temp.iterdir()) == [], "games' folders and forkservers' pymp-* are gone"
        assert main(sweep_args(url, tmp_path, killed, *spec)) == 0
        assert main(sweep_args(url, tmp_path, clean, *spec)) == 0
    with sqlite3.connect(killed) as db:
        assert db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM episodes").fetchone() == (
            12,
            12,
        )
    assert stored(killed) == stored(clean)
    scores = {v[0]: v[2] for v in stored(clean).values()}
    assert scores["local:p1-q1 mcp=off"] > scores["local:p1-q0 mcp=off"] == 0


def test_a_failed_episode_is_recorded_and_resume_continues_it_from_its_checkpoint(
    tmp_path, zork_game, capsys
):
    results = tmp_path / "results.sqlite"
    replies = [action_reply(c, new_objective=f"step {i}") for i, c in enumerate(WALKTHROUGH[:10])]
    spec = ["--model", "local:walkthrough", "--mcp", "off", "--episodes", "1", "--max-turns",
            "10", "--parallel", "1", "--game", str(zork_game)]  # fmt: skip
    with peer_for("openai", [*replies[:6], HttpFault(400, "no")], api_key=None).serve() as url:
        assert main(sweep_args(url, tmp_path, results, *spec)) == 1
    [failed] = SqliteResultStore(results).episodes()
    assert failed.failed and "LLMError" in (failed.error or "") and failed.turns == 6
    with peer_for("openai", replies[6:], api_key=None).serve() as url:
        capsys.readouterr()
        assert main(sweep_args(url, tmp_path, results, *spec)) == 0  # a failure is a result
        assert SqliteResultStore(results).episodes() == [failed]
        said = " ".join(capsys.readouterr().out.split())  # a plain re-run says why (issue 67)
        assert "Nothing left to play: the 1 episode(s) of sweep 'sweep' are stored. 1 " in said
        assert "failed in an earlier run and were kept, not played again. To play them " in said
        assert f"again: zork-mcp {' '.join(sweep_args(url, tmp_path, results, *spec))} " in said
        assert main(sweep_args(url, tmp_path, results, *spec, "--resume")) == 0
    [resumed] = SqliteResultStore(results).episodes()
    assert not resumed.failed and (resumed.turns, resumed.score, resumed.end_reason) == (
        10,
        15,
        "turn_limit",
    )
    assert [p.turn for p in resumed.trajectory] == list(range(1, 11))
    assert resumed.prompt_tokens == 100


def test_a_finished_sweep_run_again_with_more_turns_carries_its_episodes_on_replaying_nothing(
    tmp_path, zork_game, capsys
):
    """10 turns, then 20: the same rows as a clean 20-turn sweep, from LLM answers for the
    last 10 turns alone (a replayed call would find none left)."""
    extended, clean = tmp_path / "extended.sqlite", tmp_path / "clean" / "clean.sqlite"
    replies = [action_reply(c, new_objective=f"step {i}") for i, c in enumerate(WALKTHROUGH[:20])]
    spec = ["--name", "x", "--model", "local:walkthrough", "--mcp", "off", "--episodes", "1",
            "--parallel", "1", "--game", str(zork_game)]  # fmt: skip
    with peer_for("openai", replies[:10], api_key=None).serve() as url:
        assert main(sweep_args(url, tmp_path, extended, *spec, "--max-turns", "10")) == 0
    peer = peer_for("openai", replies[10:], api_key=None)
    with peer.serve() as url:
        assert main(sweep_args(url, tmp_path, extended, *spec, "--max-turns", "20")) == 0
    assert len(peer.requests) == 10 and peer.rejections == []
    assert (
        "1 episode extended: played to 10 turns, then carried on to 20" in capsys.readouterr().out
    )
    with peer_for("openai", replies, api_key=None).serve() as url:
        assert main(sweep_args(url, tmp_path, clean, *spec, "--max-turns", "20")) == 0
        assert main(sweep_args(url, tmp_path, extended, *spec, "--max-turns", "5")) == 2
    assert "has episodes played to 20 turns, and --max-turns 5" in capsys.readouterr().err
    [carried], [fresh] = SqliteResultStore(extended).episodes(), SqliteResultStore(clean).episodes()
    assert (carried.extended_from, fresh.extended_from, carried.max_turns) == (10, None, 20)
    assert (carried.turns, carried.end_reason) == (20, "turn_limit")
    assert untimed(carried.trajectory) == untimed(fresh.trajectory)
    different = ("seconds", "log_dir", "extended_from", "trajectory")
    assert {k: v for k, v in vars(carried).items() if k not in different} == {
        k: v for k, v in vars(fresh).items() if k not in different
    }


def test_ctrl_c_stops_the_sweep_keeps_finished_episodes_and_leaves_no_process(tmp_path, zork_game):
    results, marker = tmp_path / "results.sqlite", uuid.uuid4().hex
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "EVAL_MARKER": marker, "TMPDIR": str(temp)}
    spec = ["--model", "local:p1-q1", "--mcp", "on", "--episodes", "12", "--max-turns", "6",
            "--game", str(zork_game)]  # fmt: skip
    with peer().serve() as url:
        command = [sys.executable, "-m", "zork_mcp.app",
                   *sweep_args(url, tmp_path, results, *spec, workers=2)]  # fmt: skip
        sweep = subprocess.Popen(command, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 preexec_fn=as_from_a_terminal)  # fmt: skip
        kept = wait_for_rows(results, sweep, at_least=1)
        sweep.send_signal(signal.SIGINT)
        _, errors = sweep.communicate(timeout=120)
    assert sweep.returncode == 130, errors.decode()[-2000:]
    assert processes_with_environment("EVAL_MARKER", marker) == []
    assert sorted(path.name for path in temp.iterdir()) == []
    records = SqliteResultStore(results).episodes()
    assert kept <= len(records) < 12
    assert [r.error for r in records if r.failed] == []
    assert all(r.turns == 6 for r in records)


def test_many_episodes_in_one_worker_store_what_one_at_a_time_stores(tmp_path, zork_game):
    """Six episodes at once in one worker's threads, MCP on, against one at a time in
    each of two workers: the same rows and per-turn trajectories (issue 27, item 6). The
    peer numbers a cell's episodes in the order they start, so which episode gets which play
    depends on the scheduling. Every episode plays one game seed: with a seed each, a play
    met another seed's random answers in one run than in the other, and a turn's `repeated`
    (the same answer as before, from the same place) differed (the flake issue 55 saw)."""
    wide, narrow = tmp_path / "wide.sqlite", tmp_path / "narrow.sqlite"
    spec = ["--name", "resume", "--model", "local:p0.8-q0.2", "--mcp", "on", "--episodes", "6",
            "--seeds", "12", "--max-turns", "12", "--game", str(zork_game)]  # fmt: skip
    with peer().serve() as url:
        assert main([*sweep_args(url, tmp_path, wide, *spec), "--parallel", "6",
                     "--workers", "1", "--log-dir", str(tmp_path / "wide")]) == 0  # fmt: skip
    with peer().serve() as url:  # a new peer: episode streams are numbered from 0 again
        assert main([*sweep_args(url, tmp_path, narrow, *spec), "--parallel", "2",
                     "--workers", "2", "--log-dir", str(tmp_path / "narrow")]) == 0  # fmt: skip
    assert outcomes(wide) == outcomes(narrow)
    assert all(row[-1] for row in outcomes(wide)), "every episode has a trajectory"


def outcomes(results: Path) -> list[tuple]:
    """(cell, score, moves, turns, end reason, tool calls, error, trajectory) per episode."""
    rows = ((r[0], *r[2:6], *r[9:]) for r in stored(results).values())
    return sorted(rows, key=repr)


def test_a_sigkilled_sweep_leaves_no_process_within_5s(tmp_path, zork_game):
    """kill -9 of the sweep alone: its workers see their pipe close and stop their episodes;
    fork servers, MCP servers and game processes end with them, and every temp folder they
    made is gone: games' folders, multiprocessing's `pymp-*` (issue 27, item 3)."""
    results, marker = tmp_path / "results.sqlite", uuid.uuid4().hex
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "EVAL_MARKER": marker, "TMPDIR": str(temp)}
    spec = ["--model", "local:p1-q1", "--mcp", "on", "--episodes", "8", "--max-turns", "400",
            "--game", str(zork_game)]  # fmt: skip
    with WalkthroughPeer(canonical_tools=("raw.environ", "raw.pid"), tool="raw.pid",
                         tool_arguments={}, latency=0.05).serve() as url:  # fmt: skip
        command = [sys.executable, "-m", "zork_mcp.app",
                   *sweep_args(url, tmp_path, results, *spec, workers=2),
                   "--parallel", "4"]  # fmt: skip
        sweep = subprocess.Popen(command, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)  # fmt: skip
        deadline = time.monotonic() + 60
        while len(processes_with_environment("EVAL_MARKER", marker)) < 8:
            assert time.monotonic() < deadline and sweep.poll() is None, "the sweep never got going"
            time.sleep(0.1)
        time.sleep(1.0)  # turns in progress: MCP servers, game processes, LLM calls
        os.kill(sweep.pid, signal.SIGKILL)
        sweep.wait()
        killed = time.monotonic()
        while processes_with_environment("EVAL_MARKER", marker) and time.monotonic() < killed + 5:
            time.sleep(0.1)
    assert processes_with_environment("EVAL_MARKER", marker) == []
    assert sorted(path.name for path in temp.iterdir()) == []
