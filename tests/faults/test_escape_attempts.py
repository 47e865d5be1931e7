"""Servers run confined (issue 47): a hostile stdio server, forked and spawned, tries each
escape (tests/support/escape_attempts_server.py). Each is denied, the denial reaches the
tool result as an ordinary tool error, and the session goes on; the MCP root it is named
stays writable. Needs Landlock ABI 6 (signals scoped), as on the CI's kernel."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path, PurePosixPath

import pytest

from tests.support.paths import ROOT
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.adapters.posix.landlock import SCOPE_ABI, abi_version
from zork_mcp.domain.roots import Root
from zork_mcp.domain.server_config import MCPServerConfig

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(abi_version() < SCOPE_ABI, reason="needs Landlock ABI 6 or later"),
]
SERVER = ROOT / "tests" / "support" / "escape_attempts_server.py"
CALL_SECONDS = 10.0


@pytest.fixture(params=["fork", "spawn"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def planted(tmp_path, monkeypatch) -> dict[str, Path]:
    """The agent's working folder with a .env, a home with an SSH key, an episode folder."""
    work, home, episode = tmp_path / "work", tmp_path / "home", tmp_path / "episode"
    for folder in (work, home / ".ssh", episode):
        folder.mkdir(parents=True)
    (work / ".env").write_text("OPENAI_API_KEY=sk-planted\n")
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN PLANTED KEY-----\n")
    monkeypatch.chdir(work)
    return {"work": work, "home": home, "episode": episode}


async def test_every_escape_is_denied_and_the_session_goes_on(mode, planted, tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    env = {**os.environ, "HOME": str(planted["home"])}
    config = MCPServerConfig(command="python", args=(str(SERVER),))
    server = stdio_tool_server(
        {"x": config},
        server_start=mode,
        system_env=env,
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
        roots=(Root(PurePosixPath(planted["episode"]), "episode"),),
    )
    if mode == "fork":
        assert server.fork_server_ready(30)
    agent = os.getpid()
    attempts = [
        ("read", {"path": f"/proc/{agent}/environ"}),
        ("read", {"path": str(planted["work"] / ".env")}),
        ("read", {"path": ".env"}),
        ("read", {"path": str(planted["home"] / ".ssh" / "id_rsa")}),
        ("write", {"path": str(tmp_path / "outside.txt")}),
        ("write", {"path": str(planted["work"] / "dropped.txt")}),
        ("connect", {"port": port}),
        ("signal", {"pid": agent, "sig": 0}),
        ("signal", {"pid": agent, "sig": int(signal.SIGUSR1)}),
        ("ptrace", {"pid": agent}),
    ]
    try:
        async with server.open_session() as session:
            parent = (await session.call_tool("x.parent", {}, CALL_SECONDS)).content
            if mode == "fork":  # its parent is the fork server, holding the same environment
                attempts.append(("read", {"path": f"/proc/{parent}/environ"}))
                attempts.append(("signal", {"pid": int(parent), "sig": 0}))
            for tool, arguments in attempts:
                result = await session.call_tool(f"x.{tool}", arguments, CALL_SECONDS)
                said = f"{result.content} {result.error_message}"
                assert result.is_error, (tool, arguments, said)
                assert "denied: E" in said and "ESCAPED" not in said, (tool, arguments, said)
            allowed = await session.call_tool(
                "x.write", {"path": str(planted["episode"] / "notes.jsonl")}, CALL_SECONDS
            )
            assert not allowed.is_error, allowed.content
            system = await session.call_tool("x.read", {"path": "/etc/hostname"}, CALL_SECONDS)
            assert not system.is_error, system.content
    finally:
        listener.close()
        server.close()
    assert not (tmp_path / "outside.txt").exists()
    assert not (planted["work"] / "dropped.txt").exists()
    assert (planted["episode"] / "notes.jsonl").read_text() == "escaped"
    assert_no_processes_left(server)


async def test_a_server_whose_entry_says_sandbox_false_is_not_confined(planted, tmp_path):
    config = MCPServerConfig.model_validate(
        {"command": "python", "args": [str(SERVER)], "sandbox": False}
    )
    server = stdio_tool_server(
        {"x": config}, server_start="spawn", background_spare=False, stderr_path=tmp_path / "e"
    )
    try:
        async with server.open_session() as session:
            result = await session.call_tool("x.read", {"path": ".env"}, CALL_SECONDS)
    finally:
        server.close()
    assert "sk-planted" in result.content
