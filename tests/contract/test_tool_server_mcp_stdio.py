"""The real stdio adapter under the ToolServer contract, against real server processes."""

from __future__ import annotations

import sys

import pytest

from tests.contract.tool_server_contract import ToolServerContract, ToolServerSubject, echo_probe
from tests.support.paths import FAULT_SERVER
from tests.support.probes import thought_probe
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = pytest.mark.slow


def stdio_server(name: str, command: str, *args: str, tmp_path, **options) -> McpStdioToolServer:
    """Forked from the worker's fork server, as a sweep's episodes are (a fork server of a
    tool server's own, and its end, are test_fork_server.py's)."""
    config = MCPServerConfig(command=command, args=args, env={"DISABLE_THOUGHT_LOGGING": "true"})
    return stdio_tool_server(
        {name: config},
        stderr_path=tmp_path / "servers.stderr.log",
        shared_fork_server=True,
        **options,
    )


class TestOurReasoningServer(ToolServerContract):
    @pytest.fixture
    def subject(self, tmp_path):
        server = stdio_server(
            "reasoning", "python", "-m", "zork_mcp.servers.reasoning", tmp_path=tmp_path
        )
        broken = stdio_server(
            "reasoning",
            "python",
            "-m",
            "zork_mcp.servers.no_such_module",
            tmp_path=tmp_path,
            background_spare=False,
        )
        yield ToolServerSubject(
            server,
            "reasoning",
            thought_probe("reasoning.sequentialthinking"),
            broken_server=broken,
            speaks="2026-07-28",
        )
        assert_no_processes_left(server)
        assert_no_processes_left(broken)


class TestNpmSequentialThinkingServer(ToolServerContract):
    @pytest.fixture
    def subject(self, tmp_path, sequential_thinking_js):
        server = stdio_server("thinking", "node", str(sequential_thinking_js), tmp_path=tmp_path)
        probe = thought_probe("thinking.sequentialthinking")
        yield ToolServerSubject(server, "thinking", probe, speaks="2025-11-25")  # handshake only
        assert_no_processes_left(server)


class TestFaultServer(ToolServerContract):
    @pytest.fixture
    def subject(self, tmp_path):
        server = stdio_server("faults", sys.executable, str(FAULT_SERVER), tmp_path=tmp_path)
        broken = stdio_server(
            "faults",
            sys.executable,
            str(FAULT_SERVER),
            "exit-at-start",
            tmp_path=tmp_path,
            background_spare=False,
        )
        yield ToolServerSubject(
            server,
            "faults",
            echo_probe("faults.echo"),
            "faults.fail",
            "faults.slow",
            "faults.crash",
            broken,
        )
        assert_no_processes_left(server)
        assert_no_processes_left(broken)


class TestForkedFaultServer(TestFaultServer):
    """The same contract with every Python server process forked (issue 14)."""

    @pytest.fixture
    def subject(self, tmp_path):
        server = stdio_server(
            "faults", sys.executable, str(FAULT_SERVER), tmp_path=tmp_path, server_start="fork"
        )
        broken = stdio_server(
            "faults",
            sys.executable,
            str(FAULT_SERVER),
            "exit-at-start",
            tmp_path=tmp_path,
            background_spare=False,
            server_start="fork",
        )
        yield ToolServerSubject(
            server,
            "faults",
            echo_probe("faults.echo"),
            "faults.fail",
            "faults.slow",
            "faults.crash",
            broken,
        )
        assert_no_processes_left(server)
        assert_no_processes_left(broken)
