"""`zork-mcp eval` throughput and cost: a sweep through the worker processes.

The LLM is a local HTTP server speaking the OpenAI protocol that plays the walkthrough
(tests/support/eval_peers.py, model `p1-q1`; with tools it calls the reasoning server's tool
every 4th step), in a process of its own that is left out of what is measured, as a real
model is remote; MCP on runs our reasoning server, a fresh process every turn; real Jericho.

With an instant LLM (the default) the same episodes are also played back to back in one
process, which gives the runner's overhead. With `--llm-latency S` every answer takes S
seconds, and the sweep's wall time is set against the ideal: the LLM time of its longest
episode. Either way the sweep's process tree is sampled: its peak process count and peak
PSS (the sum of `Pss` in /proc/<pid>/smaps_rollup). MCP on runs in both MCP eras, one after
the other: the handshake (the config pins 2025-11-25) and the stateless era the client
speaks by default (2026-07-28); "CPU ms/turn" is the whole tree's CPU (this process, the
workers, the game and MCP server processes, all reaped by the end) per turn played.

Then the PSS of one game process: up to 16 forked as a sweep worker forks them, each played
`--turns` steps. The peak PSS, the game's PSS and (with `--llm-latency`) the efficiency,
ideal over wall, are the headline numbers: judged against benchmarks/baseline.json for
runs at the sizes it records (the quick mode's among them), or recorded with `--record`.

    python -m benchmarks.eval_sweep [--episodes 40] [--turns 100] [--parallel 16]
        [--workers 2] [--llm-latency 0] [--modes on,off] [--eras handshake,stateless]
        [--record] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path

from rich.console import Console

from benchmarks.baseline import judge, memory, ratio
from benchmarks.support import listed, parse_arguments, print_table
from zork_mcp.adapters.game.jericho import find_game_file
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.app.sweep.episode import play_episode
from zork_mcp.app.sweep.sweep import Sweep
from zork_mcp.builders.providers import parse_model
from zork_mcp.builders.settings import project_settings
from zork_mcp.domain.sweep.records import EpisodeRecord

try:  # issue 28: the back-end is an adapter; the scheduler and episodes are domain/sweep's
    from zork_mcp.adapters.sweep.processes import ProcessSweepBackend
    from zork_mcp.domain.sweep.episodes import EpisodeTask, ModelSpec
    from zork_mcp.domain.sweep.scheduler import Scheduler
except ImportError:  # a tree from before issue 28
    from zork_mcp.app.sweep.backends import ProcessSweepBackend  # type: ignore[no-redef]
    from zork_mcp.app.sweep.runner import Scheduler  # type: ignore[no-redef]

    from zork_mcp.app.sweep.episode import EpisodeTask  # type: ignore[no-redef]
    from zork_mcp.app.sweep.sweep import ModelSpec  # type: ignore[no-redef]


ERAS = {"handshake": "2025-11-25", "stateless": None}


def project(directory: Path, protocol: str | None = None) -> Path:
    server = {
        "command": "python",
        "args": ["-m", "zork_mcp.servers.reasoning"],
        "env": {"DISABLE_THOUGHT_LOGGING": "true"},
        **({"protocol": protocol} if protocol else {}),
    }
    (directory / "mcp_config.json").write_text(json.dumps({"mcpServers": {"reasoning": server}}))
    pyproject = directory / "pyproject.toml"
    pyproject.write_text("[tool.zorkgpt.mcp]\nenabled = true\n")
    return pyproject


def episodes(
    url: str, args: argparse.Namespace, directory: Path, mode: str, protocol: str | None
) -> list[EpisodeTask]:
    model = ModelSpec(parse_model("local:p1-q1"), f"{url}/v1")
    sweep = Sweep("bench", (model,), (mode,), (), args.episodes // len(args.modes), args.turns)
    config = project(directory, protocol)
    return [
        EpisodeTask(spec, directory / "logs", config, project_settings(config), str(args.game))
        for spec in sweep.episodes_to_play()
    ]


def pooled(
    tasks: list[EpisodeTask], args: argparse.Namespace, directory: Path
) -> tuple[float, float]:
    """The sweep runner's wall seconds and the whole tree's CPU seconds: worker start-up,
    scheduling and the store included; the report not."""
    store = SqliteResultStore(directory / "pool.sqlite")
    started, cpu = time.perf_counter(), tree_cpu()
    state = Scheduler(backend(args), store, args.parallel, {}).run(tasks)
    wall, cpu = time.perf_counter() - started, tree_cpu() - cpu
    failed = [r.error for r in state.records if r.failed]
    assert state.done == len(tasks), f"{len(failed)} episode(s) failed, e.g. {failed[:1]}"
    return wall, cpu


def tree_cpu() -> float:
    """This process's CPU and that of every descendant reaped so far."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def backend(args: argparse.Namespace) -> ProcessSweepBackend:
    workers = min(args.workers, args.parallel)
    per_worker = -(-args.parallel // workers)
    try:
        return ProcessSweepBackend(workers, per_worker=per_worker, player=play_episode)
    except TypeError:  # a tree from before issue 28: the back-end imports the player
        pass
    try:
        return ProcessSweepBackend(workers, per_worker=per_worker)  # type: ignore[call-arg]
    except TypeError:  # a tree from before issue 27: one episode per worker process
        return ProcessSweepBackend(args.parallel)  # type: ignore[call-arg]


def ideal_seconds(records: list[EpisodeRecord], latency: float) -> float:
    """The LLM time of the longest episode: a turn asks once, and once more after a tool."""
    return latency * max((r.turns or 0) + (r.tool_calls or 0) for r in records)


class TreeSampler:
    """Peak process count and peak PSS of this process and all its descendants, and the CPU
    seconds the sampling itself took from the sweep it measures (`cpu_seconds`).

    Reading smaps_rollup makes the kernel walk each process's page tables: ~0.13 s of CPU
    for a 64-wide sweep's ~200 processes, and listing the tree ~6 ms. PSS is sampled every
    2 s (every 5 s missed ~130 MB of a 64-wide sweep's peak), the process count every
    0.5 s: ~4 s of CPU in a 60 s sweep, 3% of this machine's two cores, shown in its table.
    """

    def __init__(
        self, interval: float = 0.5, pss_interval: float = 2.0, outside: int | None = None
    ) -> None:
        self.peak_processes, self.peak_pss_mb, self.cpu_seconds = 0, 0.0, 0.0
        self._outside = outside  # a child whose tree is not the sweep's (the scripted LLM)
        self._interval, self._stop = interval, threading.Event()
        self._pss_every = max(1, round(pss_interval / interval))

    @contextmanager
    def sampling(self) -> Iterator[TreeSampler]:
        thread = threading.Thread(target=self._run, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            thread.join()

    def _run(self) -> None:
        samples = 0
        while not self._stop.wait(self._interval):
            pids = tree(os.getpid(), self._outside)
            self.peak_processes = max(self.peak_processes, len(pids))
            if samples % self._pss_every == 0:
                self.peak_pss_mb = max(self.peak_pss_mb, sum(map(pss_kb, pids)) / 1024)
            samples += 1
        self.cpu_seconds = time.thread_time()


def tree(root: int, outside: int | None = None) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat[stat.rindex(")") + 2 :].split()[1]), []).append(
                int(entry.name)
            )
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(child for child in children.get(pid, []) if child != outside)
    return found


def pss_kb(pid: int) -> int:
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("Pss:")), 0)


def game_pss_mb(game: Path, count: int, steps: int) -> float:
    """The mean PSS of `count` game processes forked from one forkserver, as a sweep
    worker's are, each reset and played `steps` steps of the walkthrough."""
    from jericho.game_info import zork1  # after the sweeps: a sweep's driver has no game

    from zork_mcp.adapters.game.jericho.emulator_process import EmulatorProcess

    games = [EmulatorProcess(game, 0, forked=True) for _ in range(count)]
    try:
        states = [process.ask({"op": "reset"}).state for process in games]
        walkthrough = zork1["walkthrough"].split("/")
        for step in range(steps):
            command = walkthrough[step % len(walkthrough)]
            for i, process in enumerate(games):
                states[i] = process.ask({"op": "step", "command": command}, states[i]).state
        return sum(pss_kb(process.pid) for process in games) / count / 1024
    finally:
        for process in games:
            process.close()


def sizes(args: argparse.Namespace) -> str:
    """The sizes a run's numbers hold for: the key of its baseline."""
    if args.quick:
        return "quick"
    eras = "" if args.eras == ",".join(ERAS) else f" eras={args.eras}"
    return (
        f"episodes={args.episodes} turns={args.turns} parallel={args.parallel} "
        f"workers={args.workers} llm-latency={args.llm_latency:g} modes={','.join(args.modes)}"
        f"{eras}"
    )


def back_to_back(tasks: list[EpisodeTask]) -> float:
    started = time.perf_counter()
    for task in tasks:
        assert not play_episode(task).failed
    return time.perf_counter() - started


@contextmanager
def remote_llm(latency: float) -> Iterator[tuple[str, int]]:
    """The scripted LLM in a process of its own, its URL and pid: a sweep's LLM is remote,
    so its threads, memory and CPU are left out of what is measured (in this process, its
    64 connections' threads also held the driver's GIL)."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    process = context.Process(target=_serve_llm, args=(latency, theirs), daemon=True)
    process.start()
    theirs.close()
    try:
        yield ours.recv(), process.pid or 0
    finally:
        ours.close()  # its end reads EOF: it stops serving and exits
        process.join(10)


def _serve_llm(latency: float, conn: Connection) -> None:
    from tests.support.eval_peers import WalkthroughPeer  # Jericho's walkthrough: its numpy

    with WalkthroughPeer(latency=latency).serve() as url:
        conn.send(url)
        with contextlib.suppress(EOFError):
            conn.recv()


def report_seconds(records: list[EpisodeRecord]) -> float:
    """The report's time, made after every sweep of the run: a sweep's driver draws it at its
    end, so what the report loads (matplotlib) is no part of any sweep's memory."""
    from zork_mcp.app.sweep.report import render, write_csv, write_plots  # as the CLI does

    with tempfile.TemporaryDirectory() as name:
        started = time.perf_counter()
        render(Console(file=io.StringIO()), records)
        write_csv(records, Path(name))
        write_plots(records, Path(name))
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40, help="in all, split over the modes")
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--parallel", type=int, default=16, help="episodes at once")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--llm-latency", type=float, default=0.0, help="seconds each LLM answer takes"
    )
    parser.add_argument("--modes", default="on,off", help="MCP modes: on, off or both")
    parser.add_argument(
        "--eras", default=",".join(ERAS), help="MCP on's eras: handshake, stateless or both"
    )
    parser.add_argument("--game", default=None, help="the zork1.z3 story file")
    parser.add_argument(
        "--record", action="store_true", help="record the headline numbers as the baseline"
    )
    # one run (the default era) proves the sweep still runs and judges its memory
    quick = {
        "episodes": 2, "turns": 2, "parallel": 2, "workers": 1, "modes": "on", "eras": "stateless"
    }  # fmt: skip
    args = parse_arguments(parser, quick)
    args.game = find_game_file(args.game)
    args.modes = [mode.strip() for mode in args.modes.split(",")]
    rows, peak_pss, efficiency = [], 0.0, 1.0
    played: list[list[EpisodeRecord]] = []  # each run's records, for its report at the end
    intervals = {"interval": 0.25, "pss_interval": 0.25} if args.quick else {}  # over in seconds
    eras = listed(parser, "--eras", args.eras, list(ERAS))
    runs = [(mode, era) for mode in args.modes for era in (eras if mode == "on" else [None])]
    for mode, era in runs:
        with (
            tempfile.TemporaryDirectory() as name,
            remote_llm(args.llm_latency) as (url, llm_pid),
        ):
            directory = Path(name)
            tasks = episodes(url, args, directory, mode, ERAS.get(era or ""))
            # a quick run skips playing its episodes twice: its speed-up means nothing
            serial = 0.0 if args.llm_latency or args.quick else back_to_back(tasks)
            with TreeSampler(**intervals, outside=llm_pid).sampling() as sampler:
                pool, cpu = pooled(tasks, args, directory)
            records = SqliteResultStore(directory / "pool.sqlite").episodes()
            ideal = ideal_seconds(records, args.llm_latency)
            cpu_per_turn = 1000 * cpu / max(1, sum(r.turns or 0 for r in records))
            played.append(records)
        n = len(tasks)
        peak_pss = max(peak_pss, sampler.peak_pss_mb)
        if args.llm_latency:
            efficiency = min(efficiency, ideal / pool)
            versus = [f"{ideal:.1f}", f"{pool / ideal:.2f}"]
        else:
            versus = [f"{serial:.1f}", f"{serial / pool:.2f}"] if serial else ["-", "-"]
        label = f"{mode}, {era}" if era else mode
        rows.append([label, str(n), f"{pool:.1f}", f"{60 * n / pool:.1f}", *versus,
                     f"{cpu_per_turn:.1f}", str(sampler.peak_processes),
                     f"{sampler.peak_pss_mb:.0f}", f"{sampler.cpu_seconds:.1f}"])  # fmt: skip
    for row, records in zip(rows, played, strict=True):
        row.append(f"{report_seconds(records):.1f}")
    llm = f"{args.llm_latency:g} s a call" if args.llm_latency else "instant"
    print(
        f"{args.episodes} episodes of {args.turns} turns, LLM {llm}, --parallel "
        f"{args.parallel}, --workers {args.workers}"
    )
    against = ["ideal s", "wall/ideal"] if args.llm_latency else ["serial s", "speed-up"]
    print_table(
        ["MCP", "episodes", "wall s", "ep/min", *against, "CPU ms/turn", "peak procs",
         "peak PSS MB", "sampler CPU s", "report s"], rows,
    )  # fmt: skip
    game = game_pss_mb(args.game, min(args.parallel, 16), args.turns)
    print(f"a game process forked as a worker forks it: {game:.2f} MB PSS")
    headlines = [memory("peak_pss_mb", peak_pss), memory("game_pss_mb", game)]
    if args.llm_latency:
        headlines.append(ratio("efficiency", efficiency))
    judge("eval_sweep", sizes(args), headlines, write=args.record)


if __name__ == "__main__":
    main()
