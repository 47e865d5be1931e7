"""What a hostile MCP server costs the agent (issue 35): peak RSS, time and CPU per case.

Each case runs in a fresh process (so its peak RSS is its own): open one session on
tests/support/hostile_server.py, call its good tool once, close. The cases: a 50 MB
result, a 200 MB line with no newline, a 100 MB tools/list answer, 100,000 log
notifications before the answer (the call's timeout is long, so the flood's whole cost is
measured), 5,000 tools, 100 MB of stderr, and a small well-behaved case for reference. What
each call came to is printed beside it (a result, a timeout, a too-large answer, a broken
session, a failed connect). `--flood` and `--stderr-bytes` size the two floods. `--quick`
runs every case, small, in one process (its peak RSS is then the largest case's so far).

    python -m benchmarks.hostile_servers [--flood 100000] [--stderr-bytes 100000000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.support import parse_arguments, print_table

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "support" / "hostile_server.py"
CALL_TIMEOUT = 120.0


def cases(flood: int, stderr_bytes: int) -> dict[str, tuple[str, dict[str, str]]]:
    """Each case's label, the hostile server's case and its environment."""
    return {
        "reference": ("empty_name", {}),
        "50 MB result": ("big_result", {}),
        "200 MB line": ("long_line", {}),
        "100 MB tool list": ("long_list", {}),
        f"{flood:,} notifications": ("log_flood", {"HOSTILE_FLOOD": str(flood)}),
        "5,000 tools": ("many_tools", {}),
        f"{stderr_bytes / 1e6:g} MB stderr": (
            "stderr_flood",
            {"HOSTILE_STDERR_BYTES": str(stderr_bytes)},
        ),
    }


async def one(case: str, env: dict[str, str], log: Path) -> dict[str, object]:
    from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
    from zork_mcp.domain.servers.server_config import MCPServerConfig

    config = MCPServerConfig(command="python", args=(str(HOSTILE), case), env=env)
    # spawned: the fixture is a raw JSON-RPC server that starts in ~40 ms, and a fork
    # server's imports (~0.5 s of CPU a case) would be measured as no part of the case
    server = stdio_tool_server(
        {"h": config}, stderr_path=log, background_spare=False, server_start="spawn"
    )
    started, cpu = time.perf_counter(), time.process_time()
    try:
        async with server.open_session() as session:
            tools = len(session.tools)
            try:
                result = await session.call_tool("h.good", {"text": "x"}, CALL_TIMEOUT)
                outcome = f"result, {len(json.dumps(result.to_dict()))} chars"
            except Exception as error:
                outcome = type(error).__name__
    except Exception as error:
        tools, outcome = 0, f"connect: {type(error).__name__}"
    finally:
        server.close()
    return {
        "tools": tools,
        "outcome": outcome,
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "log_mb": log.stat().st_size / 1e6 if log.exists() else 0.0,
    }


def measure(*cases: tuple[str, dict[str, str]]) -> list[dict[str, object]]:
    """Each case's numbers, the cases played in turn in one fresh process."""
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, "-m", "benchmarks.hostile_servers", "--one"]
        argv += [json.dumps(cases), "--log", str(Path(folder) / "stderr.log")]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()[-len(cases) :]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--flood", type=int, default=100_000, help="log_flood's notifications")
    parser.add_argument("--stderr-bytes", type=int, default=100_000_000, help="stderr_flood's")
    options = parse_arguments(parser, {"flood": 1000, "stderr_bytes": 1_000_000})
    if options.one:  # [[case, env], ...]: each case's numbers, a line each
        for n, (case, env) in enumerate(json.loads(options.one)):
            log = Path(options.log).with_suffix(f".{n}.log")
            print(json.dumps(asyncio.run(one(case, env, log))), flush=True)
        return
    played = cases(options.flood, options.stderr_bytes)
    if options.quick:  # a fresh process per case is for its own peak RSS: ~1 s CPU apiece
        measured = measure(*played.values())
    else:
        measured = [found for case in played.values() for found in measure(case)]
    rows = []
    for name, found in zip(played, measured, strict=True):
        rows.append(
            [
                name,
                f"{found['rss_mb']:.0f}",
                f"{found['seconds']:.2f}",
                f"{found['cpu']:.2f}",
                f"{found['log_mb']:.1f}",
                str(found["tools"]),
                str(found["outcome"]),
            ]
        )
    headers = ["case", "peak RSS MB", "wall s", "CPU s", "log MB", "tools", "call"]
    print_table(headers, rows)


if __name__ == "__main__":
    main()
