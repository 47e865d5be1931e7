"""Real McpStdioToolServer instances over the plain JSON-RPC server, for adapter properties."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.processes import processes_in_groups
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.domain.servers.confinement import Sandbox
from zork_mcp.domain.servers.server_config import MCPServerConfig

RAW_SERVER = ROOT / "tests" / "support" / "raw_mcp_server.py"


def raw_server(
    log: Path | None = None,
    *,
    tools: Mapping[str, dict] | None = None,
    env: Mapping[str, str] | None = None,
    system_env: Mapping[str, str] | None = None,
    background_spare: bool = False,
    eras: str = "handshake",
    protocol: str | None = None,
) -> McpStdioToolServer:
    """`eras`: which the server speaks ("handshake", "modern" or "both"); `protocol`: the
    config entry's pin."""
    configured = {"RAW_MCP_ERAS": eras, **(env or {})}
    if log is not None:
        configured["RAW_MCP_LOG"] = str(log)
    if tools:
        listed = [{"name": name, **tool} for name, tool in tools.items()]
        configured["RAW_MCP_TOOLS"] = json.dumps(listed)
    # confined as every server is: the folders of its log and its eras file are its own
    files = [log] if log is not None else []
    files += [Path(eras[1:])] if eras.startswith("@") else []
    sandbox = Sandbox(write=tuple(str(file.parent) for file in files))
    config = MCPServerConfig(
        command=sys.executable,
        args=(str(RAW_SERVER),),
        env=configured,
        protocol=protocol,
        sandbox=sandbox,
    )
    # spawned: the script imports no more than json, so it starts in ~40 ms, where a fork
    # server would first import the MCP SDK (~0.5 s of CPU) for each property example
    return stdio_tool_server(
        {"raw": config},
        system_env=system_env,
        background_spare=background_spare,
        server_start="spawn",
    )


def methods_by_process(log: Path) -> list[list[str]]:
    """What each server process received (RAW_MCP_LOG), one list a process, in order."""
    by_process: dict[str, list[str]] = {}
    for line in log.read_text().splitlines():
        pid, method = line.split(" ", 1)
        by_process.setdefault(pid, []).append(method)
    return list(by_process.values())


def wait_until_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while processes_in_groups([pid]):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
