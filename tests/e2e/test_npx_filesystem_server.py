"""The npm reference filesystem server (`npx -y @modelcontextprotocol/server-filesystem
<folder>`), confined by default and placed in an episode as the agent places every entry:
with no `"roots"` key our client declares no roots, so the server keeps the folder its
command line names, which it reads and writes, and it never reaches the agent's own files
beside its folder in the episode (checkpoint.json). Asked for roots (`"roots": true`), it is
named its own folder of the episode, which it then serves instead. And when its command
line names a folder holding the episode, the confinement refuses what the server would not.
From an empty home folder npx downloads the server from the npm registry, as CI can."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.servers.server_places import EpisodePlaces, placed
from zork_mcp.domain.tools.tool_result import ToolCallResult

pytestmark = [
    pytest.mark.slow,
    # One worker runs the module: npx downloads the server into the module's home once.
    pytest.mark.xdist_group("npx_filesystem"),
    pytest.mark.skipif(shutil.which("npx") is None, reason="needs Node.js's npx"),
]
FILESYSTEM_PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"
CHECKPOINT = '{"turn": 7, "score": 10}'
NOTE = "the grating is under the leaves"
REFUSED = ("Access denied", "EACCES", "permission denied")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """One empty home folder for the module's servers: npx downloads the server into its
    ~/.npm once, and the later tests' npx finds it there."""
    return tmp_path_factory.mktemp("home")


class Episode:
    """A user's notes folder, and an episode folder holding the agent's checkpoint and the
    folder the filesystem server ("fs") is given there."""

    def __init__(self, tmp_path: Path) -> None:
        self.notes = tmp_path / "notes"
        self.notes.mkdir()
        (self.notes / "note.txt").write_text(NOTE)
        self.folder = tmp_path / "logs" / "e"
        self.server_folder = self.folder / "servers" / "fs"
        self.server_folder.mkdir(parents=True)
        self.checkpoint = self.folder / "checkpoint.json"
        self.checkpoint.write_text(CHECKPOINT)
        self.stderr = tmp_path / "stderr.log"

    def tool_server(self, home: Path, **entry: Any):
        """The server's entry (default sandbox) placed in the episode, as the agent's
        builder places it, and a tool server for it alone."""
        config = MCPServerConfig.model_validate(
            {"command": "npx", "args": ["-y", FILESYSTEM_PACKAGE, str(self.notes)], **entry}
        )
        places = EpisodePlaces(PurePosixPath(self.folder), PurePosixPath(home))
        return stdio_tool_server(
            {"fs": placed("fs", config, places)},
            server_start="spawn",
            system_env={**os.environ, "HOME": str(home)},
            background_spare=False,
            stderr_path=self.stderr,
            startup_timeout_seconds=180,
        )

    def assert_agent_files_untouched(self) -> None:
        assert self.checkpoint.read_text() == CHECKPOINT
        assert sorted(p.name for p in self.folder.iterdir()) == ["checkpoint.json", "servers"]


def text(result: ToolCallResult) -> str:
    """A successful call's text (its content's text parts)."""
    assert not result.is_error, result.error_message
    parts = result.content if isinstance(result.content, list) else [result.content]
    return "\n".join(part for part in parts if isinstance(part, str))


def refused(result: ToolCallResult) -> bool:
    """Refused by the server's own check of its folders, or by the kernel (EACCES)."""
    message = f"{result.error_message} {result.content}"
    return result.is_error and any(word.lower() in message.lower() for word in REFUSED)


async def attempts_on_the_agent_files(session, episode: Episode) -> list[ToolCallResult]:
    """Reading the agent's checkpoint, overwriting it, planting a file beside it and listing
    the episode's folder."""
    planted = episode.folder / "planted.json"
    wanted = [
        ("fs.read_text_file", {"path": str(episode.checkpoint)}),
        ("fs.read_file", {"path": str(episode.notes / ".." / "logs" / "e" / "checkpoint.json")}),
        ("fs.write_file", {"path": str(episode.checkpoint), "content": '{"turn": 0}'}),
        ("fs.write_file", {"path": str(planted), "content": "{}"}),
        ("fs.list_directory", {"path": str(episode.folder)}),
    ]
    return [await session.call_tool(name, arguments, 30) for name, arguments in wanted]


async def test_without_roots_it_serves_its_command_line_folder_and_not_the_episode(tmp_path, home):
    episode = Episode(tmp_path)
    server = episode.tool_server(home)
    try:
        async with server.open_session() as session:
            allowed = text(await session.call_tool("fs.list_allowed_directories", {}, 30))
            note_file = {"path": str(episode.notes / "note.txt")}
            read = await session.call_tool("fs.read_text_file", note_file, 30)
            written = await session.call_tool(
                "fs.write_file", {"path": str(episode.notes / "new.txt"), "content": "a map"}, 30
            )
            listing = text(
                await session.call_tool("fs.list_directory", {"path": str(episode.notes)}, 30)
            )
            attempts = await attempts_on_the_agent_files(session, episode)
    finally:
        server.close()
    assert allowed.splitlines()[1:] == [str(episode.notes)]
    # its text, and its structured content {"content": text}: the words reach the model once
    assert read.content == NOTE and read.to_json().count(NOTE) == 1
    assert not written.is_error and (episode.notes / "new.txt").read_text() == "a map"
    assert "note.txt" in listing and "new.txt" in listing
    assert [refused(result) for result in attempts] == [True] * len(attempts), attempts
    episode.assert_agent_files_untouched()
    assert "Client does not support MCP Roots" in episode.stderr.read_text()
    assert_no_processes_left(server)


async def allowed_until(session, folder: str, seconds: float = 15) -> list[list[str]]:
    """The server's allowed folders, asked until they are [folder] (its roots arrived) or
    `seconds` passed: each answer, in order."""
    seen: list[list[str]] = []
    deadline = time.monotonic() + seconds
    while not seen or (seen[-1] != [folder] and time.monotonic() < deadline):
        if seen:
            await asyncio.sleep(0.1)
        answer = text(await session.call_tool("fs.list_allowed_directories", {}, 30))
        seen.append(answer.splitlines()[1:])
    return seen


async def test_asked_for_roots_it_serves_its_own_folder_of_the_episode(tmp_path, home):
    """`"roots": true` names the server its own folder of the episode as its one root. A
    filesystem-like server asked for roots does what this one does: it replaces the
    folders of its command line with the client's roots, so it then serves its folder of
    the episode (<episode>/servers/fs), no longer the user's notes, and still never the
    agent's files beside it. It asks for the roots once initialized and answers calls
    meanwhile from its command line's folders: the first call may come before the update."""
    episode = Episode(tmp_path)
    server = episode.tool_server(home, roots=True)
    kept = episode.server_folder / "kept.txt"
    try:
        async with server.open_session() as session:
            seen = await allowed_until(session, str(episode.server_folder))
            written = await session.call_tool(
                "fs.write_file", {"path": str(kept), "content": "kept"}, 30
            )
            read = text(await session.call_tool("fs.read_text_file", {"path": str(kept)}, 30))
            notes = await session.call_tool(
                "fs.read_text_file", {"path": str(episode.notes / "note.txt")}, 30
            )
            attempts = await attempts_on_the_agent_files(session, episode)
    finally:
        server.close()
    assert seen[-1] == [str(episode.server_folder)]
    assert all(folders in ([str(episode.notes)], [str(episode.server_folder)]) for folders in seen)
    assert not written.is_error and read == "kept" and kept.read_text() == "kept"
    assert refused(notes)
    assert [refused(result) for result in attempts] == [True] * len(attempts), attempts
    episode.assert_agent_files_untouched()
    assert "Updated allowed directories from MCP roots" in episode.stderr.read_text()
    assert_no_processes_left(server)


async def test_a_folder_holding_the_episode_is_the_servers_to_name_not_to_reach(tmp_path, home):
    """The user names the folder of the logs (which holds the episode) on the server's
    command line: the server allows it, so its own check lets the calls through, and the
    confinement is what refuses the agent's files (EACCES; EROFS, a write to its sealed
    tree). Its own folder of the episode,
    which its placement grants, it still reads and rewrites; it cannot make a new file
    there, as this server first lists each folder from its allowed one down (logs), which
    it may not read."""
    episode = Episode(tmp_path)
    logs = episode.folder.parent
    server = episode.tool_server(home, args=["-y", FILESYSTEM_PACKAGE, str(logs)])
    kept = episode.server_folder / "kept.txt"
    kept.write_text("kept")  # as a turn before this one left it
    try:
        async with server.open_session() as session:
            allowed = text(await session.call_tool("fs.list_allowed_directories", {}, 30))
            read = text(await session.call_tool("fs.read_text_file", {"path": str(kept)}, 30))
            rewritten = await session.call_tool(
                "fs.write_file", {"path": str(kept), "content": "kept again"}, 30
            )
            attempts = await attempts_on_the_agent_files(session, episode)
    finally:
        server.close()
    assert allowed.splitlines()[1:] == [str(logs)]
    assert read == "kept"
    assert not rewritten.is_error and kept.read_text() == "kept again"
    messages = [result.error_message or "" for result in attempts]
    # the kernel's refusals: Landlock's EACCES, or the sealed tree's EROFS for a write
    assert all("EACCES" in m or "EROFS" in m for m in messages), messages
    episode.assert_agent_files_untouched()
    assert_no_processes_left(server)
