"""What confining a forked server costs a start (issue 47: at most 1 ms), side by side in one run.

Two tool servers of the reasoning server, forked, no spare (the start is on the clock), one
confined (the default) and one with `sandbox` off, turns interleaved so both see the same
machine. Each turn times take (the fork request) to the first tool call answered, and the
median of each is printed with their difference. A second table times `restrict_self` alone,
in freshly forked children of this process.

    python -m benchmarks.confinement [--turns 40]
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

from zork_mcp.adapters.mcp.stdio.sandbox import ServerSandbox
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.adapters.posix.landlock import abi_version, restrict_self
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


def _restrict_in_child() -> float:
    """Milliseconds of `restrict_self` with the reasoning server's rules, in a forked child."""
    confined = ServerSandbox(DEFAULT_SANDBOX).prepare(sys.executable, REASONING.args, os.environ)
    assert confined is not None
    rules = confined.rules.as_dict()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        started = time.perf_counter()
        restrict_self(rules)
        os.write(write, f"{(time.perf_counter() - started) * 1000}".encode())
        os._exit(0)
    os.close(write)
    took = float(os.read(read, 64))
    os.close(read)
    os.waitpid(pid, 0)
    confined.remove()
    return took


async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        servers = {True: _server(True, Path(tmp)), False: _server(False, Path(tmp))}
        times: dict[bool, list[float]] = {True: [], False: []}
        try:
            for _ in range(3):  # warm both
                for server in servers.values():
                    await _turn(server)
            for _ in range(turns):
                for sandbox, server in servers.items():
                    times[sandbox].append(await _turn(server))
        finally:
            for server in servers.values():
                server.close()
    restrict = [_restrict_in_child() for _ in range(turns)]
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"Landlock ABI {abi_version()}, {turns} forked starts each (median ms):")
    print(f"  start to first answer, confined:   {on:8.2f}")
    print(f"  start to first answer, unconfined: {off:8.2f}")
    print(f"  difference:                        {on - off:8.2f}")
    print(f"  restrict_self alone in a child:    {statistics.median(restrict):8.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    asyncio.run(main(parser.parse_args().turns))
