"""Per-turn MCP session overhead over loopback Streamable HTTP, beside stdio (issue 16).

One turn is its own asyncio.run, as in the agent: connect, settle the era, list tools, one
`sequentialthinking` call, close. Each transport is measured in both MCP eras, their turns
interleaved: the handshake (pinned to 2025-11-25: initialize, initialized, the event
stream, list, call, DELETE) and the stateless era the client speaks by default (2026-07-28:
the episode's one `server/discover`, then list and call). HTTP talks to one long-lived
`python -m zork_mcp.servers.reasoning --transport http` on 127.0.0.1; stdio starts a fresh
server per turn (background spare, as the app runs it, with `--gap` idle seconds between
turns in which the spare warms up). Targets: HTTP median <= 10 ms; the stateless HTTP turn
<= 0.6x the handshake's. CPU per turn: this process's (the client's), and for HTTP the
server's (from /proc, around each measured turn).

    python -m benchmarks.http_session_overhead [--turns 50] [--gap 0.1] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.support import cpu_ms, parse_arguments, print_table, timing_row
from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPHttpServerConfig, MCPServerConfig
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


ERAS = {"handshake (2025-11-25)": "2025-11-25", "stateless (2026-07-28)": None}


def interleaved(
    servers: dict[str, ToolServer], count: int, gap: float, server_pid: int | None = None
) -> dict[str, Turns]:
    """`count` turns of each server, taking turns, so that both see the same machine."""
    measured = {name: Turns([], 0.0, 0.0 if server_pid else None) for name in servers}
    for _ in range(count):
        for name, server in servers.items():
            time.sleep(gap)
            turn = measured[name]
            served = cpu_ms(server_pid) if server_pid else 0.0
            started = time.process_time()
            turn.seconds.append(asyncio.run(one_turn(server)))
            turn.client_cpu += (time.process_time() - started) / count
            if server_pid:
                turn.server_cpu += (cpu_ms(server_pid) - served) / 1000 / count
    return measured


def http_turns(count: int, gap: float, warm_up: int = 3) -> dict[str, Turns]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "zork_mcp.servers.reasoning", "--transport", "http"]
    process = subprocess.Popen(
        [*command, "--port", str(port)], env={**os.environ, **ENV}, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for(port)
        url = f"http://127.0.0.1:{port}/mcp"
        servers: dict[str, ToolServer] = {
            name: McpHttpToolServer({"reasoning": MCPHttpServerConfig(url=url, protocol=pin)})
            for name, pin in ERAS.items()
        }
        interleaved(servers, warm_up, 0)  # warm the server's and this process's imports
        return interleaved(servers, count, gap, process.pid)
    finally:
        process.kill()
        process.wait()


def stdio_turns(count: int, gap: float, forked_spare: bool = False) -> dict[str, Turns]:
    """`forked_spare`: the first spare waits for the fork server rather than being spawned
    while it imports (as the app's may be): a quick run's saving of an interpreter apiece."""
    args = ("-m", "zork_mcp.servers.reasoning")
    log = Path(tempfile.gettempdir()) / "zork_mcp_bench_stderr.log"
    with contextlib.ExitStack() as stack:
        servers: dict[str, ToolServer] = {}
        for name, pin in ERAS.items():
            config = MCPServerConfig(command="python", args=args, env=ENV, protocol=pin)
            server = stack.enter_context(stdio_tool_server({"reasoning": config}, stderr_path=log))
            if forked_spare:
                server.fork_server_ready(60)
            server.warm_up()
            servers[name] = server
        return interleaved(servers, count, max(gap, 0.5))


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
    # a quick run: one turn of each, after one warm-up round (each stdio turn waits 0.5 s)
    options = parse_arguments(parser, {"turns": 1, "gap": 0.0})
    http = http_turns(options.turns, options.gap, 1 if options.quick else 3)
    stdio = stdio_turns(options.turns, options.gap, forked_spare=options.quick)
    rows = [turns.row(f"http, {era}") for era, turns in http.items()]
    rows += [turns.row(f"stdio spare, {era}") for era, turns in stdio.items()]
    print("per-turn session: connect, settle the era, list tools, one call, close")
    print("CPU ms per turn: client = this process; server = the HTTP server (stdio: server_start)")
    headers = ["mode", "turns", "median ms", "p95 ms", "max ms", "client CPU", "server CPU"]
    print_table(headers, rows)
    for transport, measured in (("http", http), ("stdio", stdio)):
        handshake, stateless = (statistics.median(t.seconds) for t in measured.values())
        print(f"{transport}: stateless median / handshake median = {stateless / handshake:.2f}")


if __name__ == "__main__":
    main()
