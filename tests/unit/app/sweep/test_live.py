"""The sweep's progress line and its plain per-episode lines."""

from __future__ import annotations

import io
import os
from collections import Counter
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from zork_mcp.adapters.storage.activity_file import ACTIVITY_FILE, ActivityFile
from zork_mcp.app.sweep.live import SweepProgress, best_cell, episode_line, status
from zork_mcp.app.sweep.sweep import Sweep
from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.facts.activity import Activity, Waiting
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.episodes import EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.sweep.scheduler import SweepState


def record(cell: str, score: int, status: str = "done", error: str | None = None):
    return EpisodeRecord("s", f"{cell}{score}", cell, "local:m", "on", 12, 0, status,
                         score=score, moves=9, turns=5, end_reason="turn_limit", error=error,
                         log_dir="eval/logs/s-1")  # fmt: skip


def test_the_status_shows_done_running_failed_eta_and_the_best_cell():
    records = [record("a", 10), record("a", 20), record("b", 12), record("b", 0, "failed")]
    state = SweepState(total=10, skipped=2, done=3, failed=1, running=Counter(local=2))
    state.records.extend(records)
    assert status(state, 40.0) == (
        "done 5/10 (skipped 2) | running 2 | failed 1 | ETA 40s | best a (mean 15.0 over 2)"
    )
    assert best_cell([]) == "-" and "ETA ?" in status(SweepState(total=3), 1.0)


def test_episodes_whose_worker_still_starts_are_starting_not_running():
    """Issue 67: `running 4` while the workers were still importing."""
    starting = SweepState(total=4, running=Counter(local=4), starting=4)
    assert status(starting, 9.0).startswith("done 0/4 (skipped 0) | running 0 | starting 4 |")
    some = SweepState(total=4, running=Counter(local=4), starting=1)
    assert "| running 3 | starting 1 |" in status(some, 9.0)


def test_off_a_terminal_each_finished_episode_is_one_plain_line():
    out = io.StringIO()
    progress = SweepProgress(Console(file=out, width=300), live=False, clock=lambda: 0.0)
    progress.finished(record("a", 5), SweepState(total=1, done=1))
    progress.finished(record("b", 0, "failed", "LLMError: 429"), SweepState(total=2, done=1))
    assert out.getvalue().splitlines() == [
        "a seed 12 #0: score 5 in 9 moves, 5 turns (turn_limit) -> eval/logs/s-1",
        "b seed 12 #0: score 0 in 9 moves, 5 turns (error: LLMError: 429) -> eval/logs/s-1",
    ]
    assert episode_line(record("a", 1)).startswith("a seed 12 #0: score 1")


def test_a_cell_is_named_with_its_set_up_where_its_episodes_know_it():
    named = replace(record("a", 5), setup="history state; no MCP")
    assert best_cell([named]) == "a (history state; no MCP) (mean 5.0 over 1)"
    assert episode_line(named).startswith("a (history state; no MCP) seed 12 #0: score 5")


def running(tmp_path: Path, count: int) -> list[EpisodeTask]:
    sweep = Sweep("s", (ModelSpec(parse_model("local:m")),), ("on",), (), count, 5)
    return [
        EpisodeTask(e, tmp_path, Path("pyproject.toml"), ProjectSettings())
        for e in sweep.episodes_to_play()
    ]


def test_on_a_terminal_the_panel_says_what_each_running_episode_waits_for(tmp_path):
    """Issue 67: the sweep's live line moved only when a whole episode ended."""
    now = [1_000.0]
    console = Console(file=io.StringIO(), force_terminal=True, width=100, height=8)
    progress = SweepProgress(console, live=True, clock=lambda: now[0], now=lambda: now[0])
    first, second, third = running(tmp_path, 3)
    state = SweepState(total=3, running=Counter(local=3))
    for task in (first, second, third):
        progress.started(task, state)
    folder = tmp_path / first.spec.episode_id
    ActivityFile(folder).write(Activity(3, Waiting.TOOLS, 1, ("memory.get_map",), mcp=True))
    os.utime(folder / ACTIVITY_FILE, (now[0] + 1, now[0] + 1))
    ActivityFile(tmp_path / third.spec.episode_id).write(Activity(1, Waiting.MODEL, 1))
    os.utime(tmp_path / third.spec.episode_id / ACTIVITY_FILE, (now[0] - 60, now[0] - 60))
    now[0] += 4
    lines = progress.panel().plain.splitlines()
    assert lines[0].startswith("done 0/3 (skipped 0) | running 3 |")
    assert lines[1:] == [
        "local:m mcp=on seed 12 #0: turn 3: waiting for tool memory.get_map… 3 s",
        "local:m mcp=on seed 13 #1: started 4 s ago",
        "local:m mcp=on seed 14 #2: started 4 s ago",  # an earlier run's file is not its own
    ]
    ActivityFile(folder).remove()  # the episode ended
    now[0] += 1
    assert not any("seed 12" in line for line in progress.panel().plain.splitlines())


def test_more_episodes_than_the_panel_has_lines_for_are_counted(tmp_path):
    console = Console(file=io.StringIO(), force_terminal=True, width=100, height=6)
    progress = SweepProgress(console, live=True, clock=lambda: 0.0, now=lambda: 0.0)
    for task in running(tmp_path, 9):
        progress.started(task, SweepState(total=9))
    lines = progress.panel().plain.splitlines()
    assert len(lines) == 5 and lines[-1] == "… and 6 more running"
