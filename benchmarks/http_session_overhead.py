"""Per-turn MCP session overhead over loopback Streamable HTTP, beside stdio (issue 16).

One turn is its own asyncio.run, as in the agent: connect, initialize, list tools, one
`sequentialthinking` call, close (DELETE of the MCP session). HTTP talks to one long-lived
`python -m zork_mcp.servers.reasoning --transport http` on 127.0.0.1; stdio starts a fresh
server per turn (background spare, as the app runs it, with `--gap` idle seconds between
turns in which the spare warms up). Target: HTTP median <= 10 ms. CPU per turn: this
process's (the client's), and for HTTP the server's (from /proc, over all measured turns).

    python -m benchmarks.http_session_overhead [--turns 50] [--gap 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.support import cpu_ms, print_table, timing_row
from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.domain.server_config import MCPHttpServerConfig, MCPServerConfig
from zork_mcp.ports.tool_server import ToolServer

ENV = {"DISABLE_THOUGHT_LOGGING": "true"}
THOUGHT = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


@dataclass
class Turns:
    seconds: list[float]
    client_cpu: float  # seconds per turn
    server_cpu: float | None = None

    def row(self, name: str) -> list[str]:
        server = "" if self.server_cpu is None else f"{1000 * self.server_cpu:.1f}"
        return [*timing_row(name, self.seconds), f"{1000 * self.client_cpu:.1f}", server]


async def one_turn(server: ToolServer) -> float:
    started = time.perf_counter()
    async with server.open_session() as session:
        await session.call_tool("reasoning.sequentialthinking", THOUGHT, 30)
    return time.perf_counter() - started


def turns(server: ToolServer, count: int, gap: float) -> Turns:
    timings, cpu = [], 0.0
    for _ in range(count):
        time.sleep(gap)
        started = time.process_time()
        timings.append(asyncio.run(one_turn(server)))
        cpu += time.process_time() - started
    return Turns(timings, cpu / count)


def http_turns(count: int, gap: float) -> Turns:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "zork_mcp.servers.reasoning", "--transport", "http"]
    process = subprocess.Popen(
        [*command, "--port", str(port)], env={**os.environ, **ENV}, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for(port)
        config = MCPHttpServerConfig(url=f"http://127.0.0.1:{port}/mcp")
        server = McpHttpToolServer({"reasoning": config})
        turns(server, 3, 0)  # warm the server's and this process's imports
        before = cpu_ms(process.pid)
        measured = turns(server, count, gap)
        measured.server_cpu = (cpu_ms(process.pid) - before) / 1000 / count
        return measured
    finally:
        process.kill()
        process.wait()


def stdio_turns(count: int, gap: float) -> Turns:
    config = MCPServerConfig(command="python", args=("-m", "zork_mcp.servers.reasoning"), env=ENV)
    log = Path("/tmp/zork_mcp_bench_stderr.log")
    with stdio_tool_server({"reasoning": config}, stderr_path=log) as server:
        server.warm_up()
        return turns(server, count, max(gap, 0.5))


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the HTTP reasoning server did not listen on {port}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--gap", type=float, default=0.1, help="idle seconds between turns")
    options = parser.parse_args()
    rows = [
        http_turns(options.turns, options.gap).row("http: connect..close"),
        stdio_turns(options.turns, options.gap).row("stdio: spare, connect..close"),
    ]
    print("per-turn session: connect, initialize, list tools, one call, close")
    print("CPU ms per turn: client = this process; server = the HTTP server (stdio: server_start)")
    headers = ["mode", "turns", "median ms", "p95 ms", "max ms", "client CPU", "server CPU"]
    print_table(headers, rows)


if __name__ == "__main__":
    main()
