"""Where a fresh MCP server process per turn spends its time: spawn vs fork, side by side.

Each turn starts the reasoning server with no spare (so the start is on the clock), then
times each step: process start (Popen, or a fork request), the era (the handshake's
initialize, which waits for the process to be ready: the interpreter and its imports when
spawned; in the stateless era nothing is sent, the episode's discover being remembered, so
the wait moves to list tools), list tools, one tool call, close (pipes closed, process
handed to the reaper). Each start is measured in both MCP eras: the handshake (pinned to
2025-11-25) and the stateless 2026-07-28 (its first turn also probes). Two CPU figures,
means per turn: "start CPU" is the server process's CPU once tools are listed
(interpreter, imports and set-up when spawned; what runs after fork when forked); "life
CPU" is its whole life, exit included, plus the fork server's work per fork (every process
is reaped into this process's children CPU times; the fork server's one-off start-up is
left out).

    python -m benchmarks.server_start [--turns 20] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.support import cpu_ms, parse_arguments, print_table
from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.era import Eras
from zork_mcp.adapters.mcp.stdio.pipes import pipe_streams
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig

SERVER = MCPServerConfig(
    command="python",
    args=("-m", "zork_mcp.servers.reasoning"),
    env={"DISABLE_THOUGHT_LOGGING": "true"},
)
THOUGHT = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
STEPS = ("process start", "era", "list tools", "call", "close", "total")
ERAS = {"handshake": "2025-11-25", "stateless": None}


def children_cpu_ms() -> float:
    """CPU of every child this process has reaped, and of their reaped children."""
    times = os.times()
    return 1000 * (times.children_user + times.children_system)


async def one_turn(server: McpStdioToolServer, eras: Eras) -> dict[str, float]:
    """The adapter's own parts, step by step (what open_session does, with a clock)."""
    supply = server._supplies[0]  # a benchmark may look inside
    marks = [time.perf_counter()]
    process, _ = supply.take()
    marks.append(time.perf_counter())
    async with (
        pipe_streams(process, server._stderr) as (read, write),
        ZorkClientSession(read, write) as session,
    ):
        await eras.speak("reasoning", session)
        marks.append(time.perf_counter())
        await session.list_tools()
        marks.append(time.perf_counter())
        start_cpu = cpu_ms(process.pid)
        await session.call_tool("sequentialthinking", THOUGHT)
        marks.append(time.perf_counter())
    server._reaper.retire(process)
    marks.append(time.perf_counter())
    steps = [1000 * (b - a) for a, b in itertools.pairwise(marks)]
    total = 1000 * (marks[-1] - marks[0])
    return dict(zip([*STEPS, "start CPU"], [*steps, total, start_cpu], strict=True))


def measure(
    start: str, turns: int, log: Path, protocol: str | None
) -> tuple[list[dict[str, float]], float]:
    """Each turn's steps, and the server CPU per turn over the whole run."""
    eras = Eras({"reasoning": protocol})
    before = children_cpu_ms()
    server = stdio_tool_server(
        {"reasoning": SERVER}, background_spare=False, server_start=start, stderr_path=log
    )
    one_off = 0.0
    if start == "fork":
        server.fork_server_ready(60)
        one_off = cpu_ms(server.fork_server_pids[0])
    try:
        steps = [asyncio.run(one_turn(server, eras)) for _ in range(turns)]
    finally:
        server.close()
    return steps, (children_cpu_ms() - before - one_off) / turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    # a quick run: one turn of each start and era, a spawned one costs ~1 s of CPU
    arguments = parse_arguments(parser, {"turns": 1})
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for start, (era, pin) in itertools.product(("spawn", "fork"), ERAS.items()):
            turns, cpu = measure(start, arguments.turns, Path(directory) / "stderr.log", pin)
            medians = [statistics.median(turn[step] for turn in turns) for step in STEPS]
            start_cpu = statistics.mean(turn["start CPU"] for turn in turns)
            cpus = [f"{start_cpu:.1f}", f"{cpu:.1f}"]
            rows.append([f"{start}, {era}", str(len(turns)), *(f"{m:.1f}" for m in medians), *cpus])
    cores = os.cpu_count()
    print(f"ms per turn (steps: median; CPU: mean), fresh process, no spare, {cores} cores")
    print_table(["start", "turns", *STEPS, "start CPU", "life CPU"], rows)


if __name__ == "__main__":
    main()
