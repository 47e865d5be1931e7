"""Servers run confined (issue 47): a hostile stdio server, forked and spawned, tries each
escape (tests/support/escape_attempts_server.py). Each is denied, the denial reaches the
tool result as an ordinary tool error, and the session goes on. Placed in an episode
(issue 52), it writes its own folder there and nothing else of the episode's: not the
agent's checkpoint, journal or events, not another server's folder; it reads the journal
only when its entry names it. Needs Landlock ABI 6 (signals scoped), as on the CI's kernel."""

from __future__ import annotations

import os
import signal
import socket
import threading
from pathlib import Path, PurePosixPath

import pytest

from tests.support.paths import ROOT
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.adapters.posix.landlock import SCOPE_ABI, abi_version
from zork_mcp.adapters.posix.namespaces import namespaces_available
from zork_mcp.domain.facts.events import Event, EventType
from zork_mcp.domain.servers.host_list import PROXY_PORT
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.servers.server_places import EpisodePlaces, placed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(abi_version() < SCOPE_ABI, reason="needs Landlock ABI 6 or later"),
]
SERVER = ROOT / "tests" / "support" / "escape_attempts_server.py"
CALL_SECONDS = 10.0
OURS = ("checkpoint.json", "journal.jsonl", "events.jsonl", "servers/other/notes.jsonl")


@pytest.fixture(params=["fork", "spawn"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def planted(tmp_path, monkeypatch) -> dict[str, Path]:
    """The agent's working folder with a .env, a home with an SSH key, an episode folder."""
    work, home, episode = tmp_path / "work", tmp_path / "home", tmp_path / "episode"
    for folder in (work, home / ".ssh", episode / "servers" / "x", episode / "servers" / "other"):
        folder.mkdir(parents=True)
    for name in ("checkpoint.json", "journal.jsonl", "events.jsonl", "servers/other/notes.jsonl"):
        (episode / name).write_text("the agent's\n")
    (work / ".env").write_text("OPENAI_API_KEY=sk-planted\n")
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN PLANTED KEY-----\n")
    monkeypatch.chdir(work)
    return {"work": work, "home": home, "episode": episode}


async def test_every_escape_is_denied_and_the_session_goes_on(mode, planted, tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    env = {**os.environ, "HOME": str(planted["home"])}
    episode = planted["episode"]
    places = EpisodePlaces(PurePosixPath(episode), PurePosixPath(planted["home"]))
    config = placed("x", MCPServerConfig(command="python", args=(str(SERVER),)), places)
    server = stdio_tool_server(
        {"x": config},
        server_start=mode,
        system_env=env,
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
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
        *(("write", {"path": str(episode / name)}) for name in OURS),
        ("write", {"path": str(episode / "checkpoint.pickle")}),
        # a device node in its own folder (issue 66): the kernel log, a disk
        ("mknod", {"path": str(episode / "servers" / "x" / "kmsg")}),
        ("mknod", {"path": str(episode / "servers" / "x" / "disk"), "block": True, "major": 8}),
        ("read", {"path": str(episode / "journal.jsonl")}),
        ("read", {"path": str(episode / "servers" / "other" / "notes.jsonl")}),
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
                "x.write", {"path": str(episode / "servers" / "x" / "notes.jsonl")}, CALL_SECONDS
            )
            assert not allowed.is_error, allowed.content
            system = await session.call_tool("x.read", {"path": "/etc/hostname"}, CALL_SECONDS)
            assert not system.is_error, system.content
    finally:
        listener.close()
        server.close()
    assert not (tmp_path / "outside.txt").exists()
    assert not (planted["work"] / "dropped.txt").exists()
    assert (episode / "servers" / "x" / "notes.jsonl").read_text() == "escaped"
    assert not (episode / "checkpoint.pickle").exists()
    assert not (episode / "servers" / "x" / "kmsg").exists()
    for name in OURS:
        assert (episode / name).read_text() == "the agent's\n", name
    assert_no_processes_left(server)


async def test_an_entry_that_names_the_journal_reads_it_and_cannot_change_it(
    mode, planted, tmp_path
):
    episode = planted["episode"]
    places = EpisodePlaces(PurePosixPath(episode), PurePosixPath(planted["home"]))
    entry = MCPServerConfig(command="python", args=(str(SERVER), "${ZORK_MCP_JOURNAL}"))
    server = stdio_tool_server(
        {"x": placed("x", entry, places)},
        server_start=mode,
        system_env={**os.environ, "HOME": str(planted["home"])},
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
    )
    try:
        async with server.open_session() as session:
            journal = {"path": str(episode / "journal.jsonl")}
            read = await session.call_tool("x.read", journal, CALL_SECONDS)
            write = await session.call_tool("x.write", journal, CALL_SECONDS)
            other = await session.call_tool("x.read", {"path": str(episode / "events.jsonl")}, 10)
    finally:
        server.close()
    assert not read.is_error and "the agent's" in str(read.content)
    # read-only to it twice over: its sealed tree (EROFS, issue 66) before Landlock (EACCES)
    refused = "EROFS" if namespaces_available() else "EACCES"
    assert write.is_error and f"denied: {refused}" in str(write.error_message)
    assert other.is_error and "denied: EACCES" in str(other.error_message)
    assert (episode / "journal.jsonl").read_text() == "the agent's\n"


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


def _greeter() -> tuple[socket.socket, int]:
    """A local "host" that says hello to whoever connects."""
    listener = socket.create_server(("127.0.0.1", 0))

    def greet() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"hello from an allowed host")

    threading.Thread(target=greet, daemon=True).start()
    return listener, listener.getsockname()[1]


@pytest.mark.skipif(not namespaces_available(), reason="needs unprivileged user namespaces")
# Both modes on one worker: each listens on the host's port 3128 itself, and finding it
# taken by the other would skip that part of the check.
@pytest.mark.xdist_group("proxy-port")
async def test_a_server_with_a_host_list_reaches_those_hosts_and_nothing_else(mode, tmp_path):
    """Its one way out is the proxy, which tunnels to the listed host only. A direct
    connection goes nowhere, not even to the proxy's port on the agent's own network; nor
    does a UDP datagram. Each refused host is an event."""
    allowed_host, allowed_port = _greeter()
    other_host, other_port = _greeter()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    outer_proxy_port = _listening_on(PROXY_PORT)  # the agent's own port of that number
    said: list[Event] = []
    entry = {"command": "python", "args": [str(SERVER)]}
    config = MCPServerConfig.model_validate(
        {**entry, "sandbox": {"hosts": [f"127.0.0.1:{allowed_port}"]}}
    )
    server = stdio_tool_server(
        {"x": config},
        server_start=mode,
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
        on_event=said.append,
    )
    if mode == "fork":
        assert server.fork_server_ready(30)
    try:
        async with server.open_session() as session:
            tunnel = await session.call_tool(
                "x.proxy", {"target": f"127.0.0.1:{allowed_port}"}, CALL_SECONDS
            )
            assert not tunnel.is_error and "hello from an allowed host" in tunnel.content
            denied = [
                ("proxy", {"target": f"127.0.0.1:{other_port}"}),
                ("proxy", {"target": "localhost:443"}),
                ("connect", {"port": allowed_port}),
                ("connect", {"host": "10.255.255.1", "port": PROXY_PORT}),
            ]
            for tool, arguments in denied:
                result = await session.call_tool(f"x.{tool}", arguments, CALL_SECONDS)
                said_text = f"{result.content} {result.error_message}"
                assert result.is_error and "denied: E" in said_text, (tool, said_text)
            await session.call_tool("x.udp", {"port": udp.getsockname()[1]}, CALL_SECONDS)
            inside = await session.call_tool("x.connect", {"port": PROXY_PORT}, CALL_SECONDS)
            assert not inside.is_error  # its proxy, in its own namespace
    finally:
        server.close()
        for listener in (allowed_host, other_host):
            listener.close()
    with pytest.raises(TimeoutError):
        udp.recv(64)
    if outer_proxy_port is not None:
        outer_proxy_port.settimeout(0.1)
        with pytest.raises(TimeoutError):
            outer_proxy_port.accept()  # its connection to 127.0.0.1:3128 never came here
        outer_proxy_port.close()
    refused = [(e.fields["host"], e.fields["port"]) for e in said]
    assert refused == [("127.0.0.1", other_port), ("localhost", 443)]
    assert all(e.type is EventType.MCP_SANDBOX_HOST_REFUSED for e in said)
    assert "add it to" in said[0].message
    assert_no_processes_left(server)


@pytest.mark.skipif(not namespaces_available(), reason="needs unprivileged user namespaces")
async def test_an_empty_host_list_is_no_network_at_all(mode, tmp_path):
    config = MCPServerConfig.model_validate(
        {"command": "python", "args": [str(SERVER)], "sandbox": {"hosts": []}}
    )
    host, port = _greeter()
    server = stdio_tool_server(
        {"x": config}, server_start=mode, background_spare=False, stderr_path=tmp_path / "e"
    )
    if mode == "fork":
        assert server.fork_server_ready(30)
    try:
        async with server.open_session() as session:
            direct = await session.call_tool("x.connect", {"port": port}, CALL_SECONDS)
            proxied = await session.call_tool(
                "x.proxy", {"target": f"127.0.0.1:{port}"}, CALL_SECONDS
            )
    finally:
        server.close()
        host.close()
    assert direct.is_error and proxied.is_error
    assert "no proxy" in f"{proxied.content} {proxied.error_message}"
    assert_no_processes_left(server)


def _listening_on(port: int) -> socket.socket | None:
    try:
        return socket.create_server(("127.0.0.1", port))
    except OSError:
        return None  # taken on this machine: that part of the check is skipped
