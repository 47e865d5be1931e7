"""What Landlock cannot deny, denied by a server's own namespaces (issue 66): a hostile
server, forked and spawned, tries to change metadata outside its folder, to read through a
device node in it, and to leave a daemon behind (tests/support/escape_attempts_server.py).
The journal's and a home-folder file's mode, owner, times and extended attributes are
unchanged; the node cannot be opened; the daemon is gone when its server ends."""

from __future__ import annotations

import os
import time
from pathlib import Path, PurePosixPath

import pytest

from tests.support.paths import ROOT
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.adapters.posix.landlock import SCOPE_ABI, abi_version
from zork_mcp.adapters.posix.namespaces import namespaces_available
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.servers.server_places import EpisodePlaces, placed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(abi_version() < SCOPE_ABI, reason="needs Landlock ABI 6 or later"),
    pytest.mark.skipif(not namespaces_available(), reason="needs unprivileged user namespaces"),
]
SERVER = ROOT / "tests" / "support" / "escape_attempts_server.py"
CALL_SECONDS = 10.0
METADATA = ("chmod", "chown", "utime", "setxattr")


@pytest.fixture(params=["fork", "spawn"])
def mode(request) -> str:
    return request.param


def _episode(tmp_path: Path) -> tuple[Path, Path]:
    episode, home = tmp_path / "episode", tmp_path / "home"
    (episode / "servers" / "x").mkdir(parents=True)
    home.mkdir()
    (episode / "journal.jsonl").write_text("the agent's\n")
    (home / "diary.txt").write_text("mine\n")
    return episode, home


def _server(episode: Path, home: Path, mode: str, tmp_path: Path):
    places = EpisodePlaces(PurePosixPath(episode), PurePosixPath(home))
    entry = MCPServerConfig(command="python", args=(str(SERVER), "${ZORK_MCP_JOURNAL}"))
    return stdio_tool_server(
        {"x": placed("x", entry, places)},
        server_start=mode,
        system_env={**os.environ, "HOME": str(home)},
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
    )


def _metadata(path: Path) -> tuple:
    """All a chmod, chown, utime or setxattr would change: ctime moves with any of them."""
    info = path.stat()
    return (info.st_mode, info.st_uid, info.st_gid, info.st_mtime_ns, info.st_ctime_ns,
            sorted(os.listxattr(path)))  # fmt: skip


async def test_no_server_changes_a_file_s_metadata_outside_its_folder(mode, tmp_path):
    episode, home = _episode(tmp_path)
    theirs = [episode / "journal.jsonl", home / "diary.txt", episode, home]
    own = episode / "servers" / "x" / "notes.jsonl"
    own.write_text("its own\n")
    before = {path: _metadata(path) for path in theirs}
    server = _server(episode, home, mode, tmp_path)
    denied, allowed = [], []
    try:
        async with server.open_session() as session:
            for path in theirs:
                for call in METADATA:
                    result = await session.call_tool(f"x.{call}", {"path": str(path)}, 10)
                    denied.append((call, path, result.is_error, str(result.error_message)))
            for call in ("chmod", "utime", "setxattr"):  # chown: to nobody, not as itself
                result = await session.call_tool(f"x.{call}", {"path": str(own)}, CALL_SECONDS)
                allowed.append((call, result.is_error, str(result.content)))
    finally:
        server.close()
    for call, path, failed, said in denied:
        assert failed and "denied: E" in said, (call, path, said)
    assert {path: _metadata(path) for path in theirs} == before
    assert all(not failed for _, failed, _ in allowed), allowed
    assert own.stat().st_mode & 0o777 == 0o666 and own.stat().st_mtime == 0
    assert_no_processes_left(server)


@pytest.mark.skipif(os.geteuid() != 0, reason="planting a device node needs root")
async def test_a_device_node_in_its_folder_cannot_be_opened(mode, tmp_path):
    """Landlock stops it making one; a node already there (made by someone else: /dev/zero's
    numbers here) cannot be read through either: its folder is bound with no devices."""
    episode, home = _episode(tmp_path)
    node = episode / "servers" / "x" / "zero"
    os.mknod(node, 0o666 | 0o020000, os.makedev(1, 5))
    server = _server(episode, home, mode, tmp_path)
    try:
        async with server.open_session() as session:
            result = await session.call_tool("x.open", {"path": str(node)}, CALL_SECONDS)
            null = await session.call_tool("x.open", {"path": "/dev/zero"}, CALL_SECONDS)
    finally:
        server.close()
    assert result.is_error and "denied: EACCES" in str(result.error_message), result.content
    assert not null.is_error, "the system's own devices still work"
    assert_no_processes_left(server)


async def test_a_double_forked_setsid_daemon_ends_with_its_server(mode, tmp_path):
    episode, home = _episode(tmp_path)
    pid_file = episode / "servers" / "x" / "daemon.pid"
    server = _server(episode, home, mode, tmp_path)
    try:
        async with server.open_session() as session:
            started = await session.call_tool("x.daemon", {"path": str(pid_file)}, CALL_SECONDS)
            assert not started.is_error, started.content
            daemon = int(_when_written(pid_file))
            sessions = {os.getsid(pid) for pid in server.server_pids}
            assert os.getsid(daemon) not in sessions, "out of its server's session and group"
    finally:
        server.close()
    assert _gone(daemon, seconds=10), f"daemon {daemon} outlived its server"
    assert_no_processes_left(server)


def _when_written(path: Path, seconds: float = 10.0) -> str:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.02)
    return path.read_text()


def _gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.02)
    return False
