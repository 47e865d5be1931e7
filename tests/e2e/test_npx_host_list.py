"""A new user's `npx -y` server, confined with a host list (issue 47): from an empty home
folder, npx downloads the npm reference server through the agent's proxy, which lets it
reach the npm registry and nothing else, and the server answers. With the registry left
out of its list, it cannot install, and the refused host is an event that says how to fix
it. Needs the npm registry, as CI has."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import NPM_PACKAGE
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.adapters.posix.namespaces import namespaces_available
from zork_mcp.domain.errors import MCPServerStartupError
from zork_mcp.domain.facts.events import Event, EventType
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("npx") is None, reason="needs Node.js's npx"),
    pytest.mark.skipif(not namespaces_available(), reason="needs unprivileged user namespaces"),
]
REGISTRY = "registry.npmjs.org"


def _tool_server(tmp_path, hosts: list[str], said: list[Event]):
    home = tmp_path / "home"
    home.mkdir()
    config = MCPServerConfig.model_validate(
        {"command": "npx", "args": ["-y", NPM_PACKAGE], "sandbox": {"hosts": hosts}}
    )
    return stdio_tool_server(
        {"n": config},
        server_start="spawn",
        system_env={**os.environ, "HOME": str(home)},
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
        startup_timeout_seconds=180,
        on_event=said.append,
    )


async def test_npx_installs_through_the_proxy_and_the_server_answers(tmp_path):
    said: list[Event] = []
    server = _tool_server(tmp_path, [REGISTRY], said)
    try:
        async with server.open_session() as session:
            names = [tool.name for tool in session.tools]
    finally:
        server.close()
    assert "sequentialthinking" in names
    assert said == []
    assert (tmp_path / "home" / ".npm").is_dir()  # made for npx, which may not make it
    assert_no_processes_left(server)


async def test_without_the_registry_in_its_list_npx_cannot_install_and_says_why(tmp_path):
    said: list[Event] = []
    server = _tool_server(tmp_path, ["example.com"], said)
    try:
        with pytest.raises(MCPServerStartupError):
            async with server.open_session():
                pass
    finally:
        server.close()
    refused = [e for e in said if e.type is EventType.MCP_SANDBOX_HOST_REFUSED]
    assert refused and refused[0].fields["host"] == REGISTRY
    assert '"sandbox": {"hosts": [...]}' in refused[0].message
    assert_no_processes_left(server)
