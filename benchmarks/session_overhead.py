"""Critical-path MCP session overhead per turn: background spare vs. none vs. the naive cycle.

Each turn is its own asyncio.run, as in the agent. A turn opens a session to a fresh server
process, makes one tool call, does `--turn-seconds` of other work (the LLM call and the game
step, simulated), and closes the session. The overhead is the time spent opening and closing
the session; the tool call itself is not counted. The naive cycle is the SDK's own
stdio_client + ClientSession: spawn, initialize, list_tools, one call, exit.

    python -m benchmarks.session_overhead [--turns 30] [--turn-seconds 1.0] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from mcp.client.stdio import StdioServerParameters, stdio_client

from benchmarks.support import parse_arguments
from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig

ARGS = ("-m", "zork_mcp.servers.reasoning")
ENV = {"DISABLE_THOUGHT_LOGGING": "true"}
THOUGHT = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


def adapter_turns(
    turns: int, turn_seconds: float, spare: bool, log: Path, forked: bool = False
) -> list[float]:
    """`forked`: wait for the fork server first, so that no process is spawned while it
    imports (a quick run's saving of an interpreter apiece)."""
    config = MCPServerConfig(command="python", args=ARGS, env=ENV)
    server = stdio_tool_server({"reasoning": config}, background_spare=spare, stderr_path=log)
    if forked:
        server.fork_server_ready(60)
    server.warm_up()  # as the app does at start-up
    time.sleep(turn_seconds)
    overheads = []
    try:
        for _ in range(turns):
            overheads.append(asyncio.run(_adapter_turn(server, turn_seconds)))
    finally:
        server.close()
    return overheads


async def _adapter_turn(server: McpStdioToolServer, turn_seconds: float) -> float:
    started = time.perf_counter()
    async with server.open_session() as session:
        opened = time.perf_counter()
        await session.call_tool("reasoning.sequentialthinking", THOUGHT, 30)
        await asyncio.sleep(turn_seconds)
        closing = time.perf_counter()
    closed = time.perf_counter()
    return (opened - started) + (closed - closing)


def naive_cycles(turns: int) -> list[float]:
    return [asyncio.run(_naive_cycle()) for _ in range(turns)]


async def _naive_cycle() -> float:
    parameters = StdioServerParameters(command=sys.executable, args=list(ARGS), env=ENV)
    started = time.perf_counter()
    with open("/dev/null", "w") as errlog:
        async with (
            stdio_client(parameters, errlog=errlog) as (read, write),
            ZorkClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            await session.call_tool("sequentialthinking", THOUGHT)
    return time.perf_counter() - started


def p95(values: list[float]) -> float:
    if len(values) < 2:  # a quick run's one turn
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--turn-seconds", type=float, default=1.0)
    # a quick run: one turn of each mode (the naive cycle spawns a server, ~1 s CPU, a turn)
    options = parse_arguments(parser, {"turns": 1, "turn_seconds": 0.05})
    log = Path("/tmp/zork_mcp_bench_stderr.log")
    turns, seconds, forked = options.turns, options.turn_seconds, options.quick
    rows = [
        ("fresh process, background spare", adapter_turns(turns, seconds, True, log, forked)),
        ("fresh process, no spare", adapter_turns(turns, seconds, False, log, forked)),
        ("naive SDK cycle (spawn..exit)", naive_cycles(options.turns)),
    ]  # fmt: skip
    print(f"{options.turns} turns, {options.turn_seconds:g}s of simulated LLM+game work per turn")
    print(f"{'mode':<34} {'median ms':>10} {'p95 ms':>10} {'max ms':>10}")
    for name, values in rows:
        ms = [v * 1000 for v in values]
        print(f"{name:<34} {statistics.median(ms):>10.1f} {p95(ms):>10.1f} {max(ms):>10.1f}")


if __name__ == "__main__":
    main()
