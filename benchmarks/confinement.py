"""What confining a forked server costs a start (issue 47: at most 1 ms), side by side in one run.

Two tool servers of the reasoning server, forked, no spare (the start is on the clock), one
confined (the default) and one with `sandbox` off, turns interleaved so both see the same
machine. Each turn times take (the fork request) to the first tool call answered, and the
median of each is printed with their difference. Then the two parts of the confinement alone:
building the server's Landlock ruleset (in the agent) and enforcing it (in a freshly forked
child of this process, as the server does before its code runs).

    python -m benchmarks.confinement [--turns 100]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scipy.stats import bootstrap

from zork_mcp.adapters.mcp.stdio.sandbox import ServerSandbox
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.adapters.posix.landlock import abi_version, build_ruleset, enforce
from zork_mcp.domain.confinement import DEFAULT_SANDBOX
from zork_mcp.domain.server_config import MCPServerConfig

REASONING = MCPServerConfig(command="python", args=("-m", "zork_mcp.servers.reasoning"))
THOUGHT = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


def _server(sandbox: bool, folder: Path) -> McpStdioToolServer:
    server = stdio_tool_server(
        {"r": REASONING},
        server_start="fork",
        background_spare=False,
        stderr_path=folder / f"stderr-{sandbox}.log",
        sandbox=sandbox,
    )
    assert server.fork_server_ready(60)
    return server


async def _turn(server: McpStdioToolServer) -> float:
    started = time.perf_counter()
    async with server.open_session() as session:
        await session.call_tool("r.sequentialthinking", THOUGHT, 30)
        took = time.perf_counter() - started
    return took * 1000


def _build_and_enforce() -> tuple[float, float]:
    """Milliseconds to build the reasoning server's ruleset (in the agent, as a start does)
    and to enforce it (in a freshly forked child, as the server does)."""
    confined = ServerSandbox(DEFAULT_SANDBOX).prepare(sys.executable, REASONING.args, os.environ)
    assert confined is not None
    started = time.perf_counter()
    ruleset = build_ruleset(confined.rules.as_dict())
    built = (time.perf_counter() - started) * 1000
    assert ruleset is not None, "the kernel has no Landlock"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        started = time.perf_counter()
        enforce(ruleset)
        os.write(write, f"{(time.perf_counter() - started) * 1000}".encode())
        os._exit(0)
    os.close(write)
    os.close(ruleset)
    took = float(os.read(read, 64))
    os.close(read)
    os.waitpid(pid, 0)
    confined.remove()
    return built, took


async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        servers = {True: _server(True, Path(tmp)), False: _server(False, Path(tmp))}
        times: dict[bool, list[float]] = {True: [], False: []}
        try:
            for _ in range(3):  # warm both
                for server in servers.values():
                    await _turn(server)
            for turn in range(turns):  # paired, and each goes first every other turn
                for sandbox in (True, False) if turn % 2 else (False, True):
                    times[sandbox].append(await _turn(servers[sandbox]))
        finally:
            for server in servers.values():
                server.close()
    built, enforced = zip(*(_build_and_enforce() for _ in range(turns)), strict=True)
    on, off = statistics.median(times[True]), statistics.median(times[False])
    paired = [a - b for a, b in zip(times[True], times[False], strict=True)]
    low, high = _median_ci(paired)
    print(f"Landlock ABI {abi_version()}, {turns} forked starts each (median ms):")
    print(f"  start to first answer, confined:   {on:8.2f}")
    print(f"  start to first answer, unconfined: {off:8.2f}")
    print(f"  difference, paired by turn:        {statistics.median(paired):8.2f}", end="")
    print(f"   (95% CI {low:.2f} to {high:.2f})")
    print(f"  its ruleset built, in the agent:   {statistics.median(built):8.3f}")
    print(f"  its ruleset enforced, in a child:  {statistics.median(enforced):8.3f}")


def _median_ci(values: list[float]) -> tuple[float, float]:
    """A bootstrap 95% confidence interval of the median (BCa, scipy's default)."""
    result = bootstrap((values,), statistics.median, random_state=0, vectorized=False)
    return result.confidence_interval.low, result.confidence_interval.high


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    asyncio.run(main(parser.parse_args().turns))
