"""`zork-mcp eval` throughput: a sweep through the process pool against the same episodes
played back to back in one process (the runner's overhead), with an instant LLM.

The LLM is a local HTTP server speaking the OpenAI protocol that plays the walkthrough
(tests/support/eval_peers.py, model `p1-q1`; with tools it calls the reasoning server's tool
every 4th step); MCP on runs our reasoning server, a fresh process every turn; real Jericho.

    python -m benchmarks.eval_sweep [--episodes 40] [--turns 100] [--parallel 2] [--modes on,off]
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import time
from pathlib import Path

from rich.console import Console

from benchmarks.support import print_table
from tests.support.eval_peers import WalkthroughPeer
from zork_mcp.adapters.jericho_game import find_game_file
from zork_mcp.adapters.sqlite_results import SqliteResultStore
from zork_mcp.app.eval.backends import LocalBackend
from zork_mcp.app.eval.episode import EpisodeTask, play_episode
from zork_mcp.app.eval.report import render, write_csv, write_plots
from zork_mcp.app.eval.runner import Scheduler
from zork_mcp.app.eval.sweep import ModelSpec, Sweep


def project(directory: Path) -> Path:
    server = {
        "command": "python",
        "args": ["-m", "zork_mcp.servers.reasoning"],
        "env": {"DISABLE_THOUGHT_LOGGING": "true"},
    }
    (directory / "mcp_config.json").write_text(json.dumps({"mcpServers": {"reasoning": server}}))
    pyproject = directory / "pyproject.toml"
    pyproject.write_text("[tool.zorkgpt.mcp]\nenabled = true\n")
    return pyproject


def episodes(url: str, args: argparse.Namespace, directory: Path, mode: str) -> list[EpisodeTask]:
    model = ModelSpec("local", "p1-q1", f"{url}/v1")
    sweep = Sweep("bench", (model,), (mode,), (), args.episodes // len(args.modes), args.turns)
    config = project(directory)
    return [
        EpisodeTask(spec, directory / "logs", config, str(args.game))
        for spec in sweep.episodes_to_play()
    ]


def pooled(tasks: list[EpisodeTask], args: argparse.Namespace, directory: Path) -> float:
    """The sweep runner: worker start-up, scheduling and the store included; the report not."""
    store = SqliteResultStore(directory / "pool.sqlite")
    started = time.perf_counter()
    state = Scheduler(LocalBackend(args.parallel), store, args.parallel, {}).run(tasks)
    wall = time.perf_counter() - started
    assert state.done == len(tasks), "an episode failed: see the logs"
    return wall


def back_to_back(tasks: list[EpisodeTask]) -> float:
    started = time.perf_counter()
    for task in tasks:
        assert not play_episode(task).failed
    return time.perf_counter() - started


def report_seconds(directory: Path) -> float:
    records = SqliteResultStore(directory / "pool.sqlite").episodes()
    started = time.perf_counter()
    render(Console(file=io.StringIO()), records)
    write_csv(records, directory / "out")
    write_plots(records, directory / "out")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40, help="in all, split over the modes")
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--modes", default="on,off", help="MCP modes: on, off or both")
    parser.add_argument("--game", default=None, help="the zork1.z3 story file")
    args = parser.parse_args()
    args.game = find_game_file(args.game)
    args.modes = [mode.strip() for mode in args.modes.split(",")]
    rows = []
    for mode in args.modes:
        with tempfile.TemporaryDirectory() as name, WalkthroughPeer().serve() as url:
            directory = Path(name)
            tasks = episodes(url, args, directory, mode)
            serial = back_to_back(tasks)
            pool = pooled(tasks, args, directory)
            report = report_seconds(directory)
        n = len(tasks)
        overhead = (pool * args.parallel - serial) / n
        rows.append([mode, str(n), f"{serial:.1f}", f"{60 * n / serial:.1f}", f"{pool:.1f}",
                     f"{60 * n / pool:.1f}", f"{serial / pool:.2f}", f"{overhead:.2f}",
                     f"{report:.1f}"])  # fmt: skip
    print(
        f"{args.episodes} episodes of {args.turns} turns, instant LLM, --parallel {args.parallel}"
    )
    print_table(
        ["MCP", "episodes", "serial s", "ep/min", "pool s", "ep/min", "speed-up",
         "overhead s/ep", "report s"], rows,
    )  # fmt: skip


if __name__ == "__main__":
    main()
