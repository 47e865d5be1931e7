"""What confining a forked server costs a start (issue 47: at most 1 ms), side by side in one run.

Four tool servers of the reasoning server, forked, no spare (the start is on the clock):
one with `sandbox` off, one confined by Landlock alone (as on a kernel that lets no process
make a user namespace), one confined (the default: Landlock and its own user, mount and PID
namespaces, issue 66), one confined with a host list (its network namespace too, and a
proxy; an unused one, the reasoning server connects nowhere). Their
starts are interleaved, in turns whose order rotates, so all see the same machine. Each
start is timed from take (the fork request) to the first tool call answered; the medians
are printed, and each confined start's difference from the unconfined start of its turn,
with a bootstrap 95% CI of its median. Then the two parts of the default confinement alone:
building the server's Landlock ruleset (in the agent) and enforcing it (in a freshly forked
child of this process, as the server does before its code runs).

    python -m benchmarks.confinement [--turns 100] [--warm-ups 3] [--quick]
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
from unittest import mock

from scipy.stats import bootstrap

from benchmarks.support import parse_arguments
from zork_mcp.adapters.mcp.stdio import sandbox
from zork_mcp.adapters.mcp.stdio.sandbox import ServerSandbox
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.adapters.posix.landlock import abi_version, build_ruleset, enforce
from zork_mcp.domain.servers.confinement import DEFAULT_SANDBOX
from zork_mcp.domain.servers.server_config import MCPServerConfig

REASONING = MCPServerConfig(command="python", args=("-m", "zork_mcp.servers.reasoning"))
THOUGHT = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


WITH_HOSTS = MCPServerConfig.model_validate(
    {**REASONING.model_dump(), "sandbox": {"hosts": ["example.com"]}}
)
KINDS = {"unconfined": (REASONING, False), "Landlock alone": (REASONING, True),
         "confined": (REASONING, True), "with a host list": (WITH_HOSTS, True)}  # fmt: skip
UNSEALED = "Landlock alone"


def _server(kind: str, folder: Path) -> McpStdioToolServer:
    config, sandbox = KINDS[kind]
    server = stdio_tool_server(
        {"r": config},
        server_start="fork",
        background_spare=False,
        stderr_path=folder / f"stderr-{kind}.log",
        sandbox=sandbox,
    )
    server.warm_up()  # no spare: its fork server starts importing, not waited for here
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


async def main(turns: int, warm_ups: int = 3) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        servers = {kind: _server(kind, Path(tmp)) for kind in KINDS}
        for server in servers.values():  # all import side by side
            assert server.fork_server_ready(60)
        kinds = list(KINDS)
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        try:
            with mock.patch.object(sandbox, "namespaces_available", lambda: False):
                await _turn(servers[UNSEALED])  # its policy decided (and kept) unsealed
            for _ in range(warm_ups):  # warm all
                for server in servers.values():
                    await _turn(server)
            for turn in range(turns):
                shift = turn % len(kinds)
                for kind in kinds[shift:] + kinds[:shift]:
                    times[kind].append(await _turn(servers[kind]))
        finally:
            for server in servers.values():
                server.close()
    built, enforced = zip(*(_build_and_enforce() for _ in range(turns)), strict=True)
    print(f"Landlock ABI {abi_version()}, {turns} forked starts each, start to first answer (ms):")
    print(f"  {'':18} {'median':>8}  difference from unconfined, paired by turn")
    for kind in KINDS:
        line = f"  {kind:18} {statistics.median(times[kind]):8.2f}"
        if kind != "unconfined":
            paired = [a - b for a, b in zip(times[kind], times["unconfined"], strict=True)]
            low, high = _median_ci(paired)
            line += f"  {statistics.median(paired):+.2f} (95% CI {low:+.2f} to {high:+.2f})"
        print(line)
    paired = [a - b for a, b in zip(times["confined"], times[UNSEALED], strict=True)]
    low, high = _median_ci(paired)
    print(f"  its own namespaces (confined minus {UNSEALED}): {statistics.median(paired):+.2f}"
          f" (95% CI {low:+.2f} to {high:+.2f})")  # fmt: skip
    print("The default confinement's two parts (median ms):")
    print(f"  its ruleset built, in the agent:   {statistics.median(built):8.3f}")
    print(f"  its ruleset enforced, in a child:  {statistics.median(enforced):8.3f}")


def _median_ci(values: list[float]) -> tuple[float, float]:
    """A bootstrap 95% confidence interval of the median (BCa, scipy's default)."""
    result = bootstrap((values,), statistics.median, random_state=0, vectorized=False)
    return result.confidence_interval.low, result.confidence_interval.high


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--warm-ups", type=int, default=3, help="unmeasured turns first")
    options = parse_arguments(parser, {"turns": 5, "warm_ups": 1})
    asyncio.run(main(options.turns, options.warm_ups))
