"""The memory server through the agent's own assembly (the builders, the real McpToolServer,
real server processes forked and spawned, both MCP eras, and over HTTP): no roots, it serves
the episode whose journal its entry names (`${ZORK_MCP_JOURNAL}`, filled per episode),
reading the journal the orchestrator writes and never changing it, and keeps the agent's
notes in its own folder of the episode across the fresh process of every turn."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.http_servers import http_server
from tests.support.processes import descendants_before_the_test, live_descendants
from tests.support.projects import play_episode
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.builders.mcp import mcp_tool_server, run_tool_settings, start_plan
from zork_mcp.builders.settings import RunOptions
from zork_mcp.builders.storage import episode_journal
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.servers.server_config import parse_mcp_config
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.ports.tool_server import ToolServer

pytestmark = pytest.mark.slow

ERAS = {"handshake": "2025-11-25", "stateless": "2026-07-28"}
MEMORY = {  # one entry for every episode, as a sweep shares it
    "command": "python",
    "args": ["-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"],
}
TOOLS = ["get_map", "find_path", "add_note", "read_notes", "search_history"]
WEST, FOREST_1, FOREST_2 = Place("West of House", 64), Place("Forest", 191), Place("Forest", 192)
CLEARING = Place("Clearing", 200)
WALK = [  # turn, command, answer, where it left the player
    (1, "north", "North of House", Place("North of House", 65)),
    (2, "west", "Forest\nThis is a forest, with trees in all directions.", FOREST_1),
    (3, "north", "You can't go that way.", FOREST_1),
    (4, "east", "Forest\nThe forest thins.", FOREST_2),
    (5, "north", "Clearing\nYou see a pile of leaves. A troll growls in the distance.", CLEARING),
]


def played(turn: int, command: str, answer: str, place: Place) -> PlayedTurn:
    return PlayedTurn(turn, command, answer, place)


def notes_of(folder: Path) -> list[int]:
    """The turns of the notes the agent reads back (from its memory server's folder)."""
    return [note.turn for note in episode_journal(folder, folder / "servers" / "memory").notes()]


def begun(folder: Path, turns: int) -> None:
    """The orchestrator's side: the journal of an episode that played `turns` of WALK."""
    episode_journal(folder).begin(WEST, "ZORK I: The Great Underground Empire\nWest of House", 0)
    play_on(folder, 0, turns)


def play_on(folder: Path, played_turns: int, turns: int) -> None:
    """The turns of WALK after `played_turns`, up to `turns`."""
    journal = episode_journal(folder)
    for step in WALK[played_turns:turns]:
        journal.record(played(*step))


def stdio(protocol: str | None) -> dict[str, Any]:
    return {**MEMORY, **({"protocol": protocol} if protocol else {})}


@contextmanager
def memory_tools(
    log_dir: Path, episode_id: str, start: str, entry: dict[str, Any]
) -> Iterator[ToolServer]:
    """The agent's tool server for one episode, as `run_tool_settings` builds it (its
    entry placed in the episode's folder)."""
    mcp = parse_mcp_config(json.dumps({"mcpServers": {"memory": entry}}), source="test")
    settings = MCPSettings(server_start=start, background_spare=False)
    options = RunOptions(log_dir=log_dir, episode_id=episode_id)
    built = run_tool_settings(options, settings, mcp, start_plan(mcp.mcpServers, start))
    assert built is not None
    server = mcp_tool_server(built, warn=print)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(autouse=True)
def no_process_left():
    """Every server process, and every fork server, ends with its tool server (what earlier
    tests left running by design, a process-wide fork server, is not this test's)."""
    before = set(live_descendants(os.getpid()))
    yield
    left = set(live_descendants(os.getpid())) - before - descendants_before_the_test()
    assert not left, f"processes outlived their tool servers: {left}"


async def calls(server: ToolServer, *wanted: tuple[str, Mapping[str, Any]]) -> list[Any]:
    """One session (one fresh server process), the calls made in order: each one's text, or
    its error as ("error", message)."""
    answers = []
    async with server.open_session() as session:
        for name, arguments in wanted:
            result = await session.call_tool(f"memory.{name}", arguments, 20)
            answers.append(("error", result.error_message) if result.is_error else result.content)
    return answers


def test_the_agent_keeps_a_note_in_one_turn_and_reads_it_with_the_map_in_the_next(tmp_path):
    """The CLI as it stands: the orchestrator's journal, the memory server's folder."""
    replies = [
        action_reply("north"),
        tool_calls_reply(("memory.add_note", {"note": "the window is ajar"})),
        action_reply("east"),
        tool_calls_reply(("memory.read_notes", {}), ("memory.get_map", {})),
        action_reply("open window"),
    ]
    tools = [f"memory.{name}" for name in TOOLS]
    code, events, peer = play_episode(tmp_path, {"memory": MEMORY}, replies, tools, 3)
    results = [e for e in events if e["event_type"] == "mcp_tool_result"]
    assert code == 0 and peer.rejections == [] and not any(e["is_error"] for e in results)
    notes, the_map = (e["result_preview"] for e in results[1:])
    assert notes == "Your notes, oldest first (1):\n- (turn 2) the window is ajar"
    assert the_map.startswith("Map: ") and "[here]" in the_map


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("start", ["fork", "spawn"])
async def test_the_map_routes_history_and_notes_of_the_episode_across_fresh_processes(
    tmp_path, start, era
):
    begun(tmp_path / "e1", 1)
    with memory_tools(tmp_path, "e1", start, stdio(ERAS[era])) as server:
        (noted,) = await calls(server, ("add_note", {"note": "  leaflet:\n mailbox  "}))
        assert noted.startswith("Noted in turn 2")
        play_on(tmp_path / "e1", 1, 5)  # ... and the orchestrator plays on, to turn 5
        the_map, route, back, found, notes = await calls(
            server,
            ("get_map", {}),
            ("find_path", {"from_room": "North of House", "to_room": "here"}),
            ("find_path", {"from_room": "here", "to_room": "Forest (1)"}),
            ("search_history", {"query": "TROLL growls"}),
            ("read_notes", {}),
        )
    assert "* Forest (1)" in the_map and "* Forest (2)" in the_map
    assert "* Clearing [here]" in the_map and "north: blocked" in the_map
    assert route == "From North of House to Clearing: west, east, north (3 moves)"
    assert back.startswith("No known route from Clearing to Forest (1)")
    assert found.startswith("1 of 5 past turns match 'troll growls'")
    assert "Turn 5 (Clearing) > north\nClearing\nYou see a pile of leaves." in found
    assert notes == "Your notes, oldest first (1):\n- (turn 2) leaflet: mailbox"
    episode = tmp_path / "e1"
    assert sorted(os.listdir(episode)) == ["journal.jsonl", "mcp_servers.stderr.log", "servers"]
    assert "notes.jsonl" in os.listdir(episode / "servers" / "memory")


async def test_a_note_of_turn_2_is_read_in_turn_20_through_another_process(tmp_path):
    folder = tmp_path / "e1"
    begun(folder, 1)
    with memory_tools(tmp_path, "e1", "fork", stdio(None)) as server:
        await calls(server, ("add_note", {"note": "the grating is locked"}))
        journal = episode_journal(folder)
        for turn in range(2, 20):
            journal.record(played(turn, "wait", "Time passes.", WEST))
        (notes,) = await calls(server, ("read_notes", {}))
        assert notes.endswith("- (turn 2) the grating is locked")
        (again,) = await calls(server, ("add_note", {"note": "troll: north of the cellar"}))
    assert again.startswith("Noted in turn 20")
    assert notes_of(folder) == [2, 20]


async def test_a_resume_forgets_the_turns_and_notes_after_its_checkpoint(tmp_path):
    folder = tmp_path / "e1"
    begun(folder, 5)
    with memory_tools(tmp_path, "e1", "fork", stdio("2026-07-28")) as server:
        await calls(server, ("add_note", {"note": "in turn 6: the troll"}))
        # killed after turn 5, resumed from the checkpoint of turn 2
        episode_journal(folder).begin(WEST, "ZORK I: The Great Underground Empire", 2)
        the_map, found, notes = await calls(
            server, ("get_map", {}), ("search_history", {"query": "troll"}), ("read_notes", {})
        )
    assert "Clearing" not in the_map and the_map.endswith("* Forest [here]")
    assert found == "No past turn matches 'troll' (searched 2 turns)."
    assert notes.startswith("No notes yet")


async def test_parallel_episodes_with_one_config_never_see_each_others_notes(tmp_path):
    for episode in ("e1", "e2"):
        begun(tmp_path / episode, 2)

    async def episode(name: str) -> list[Any]:
        with memory_tools(tmp_path, name, "fork", stdio(None)) as server:
            await calls(server, ("add_note", {"note": f"I am {name}"}))
            return await calls(server, ("read_notes", {}))

    first, second = await asyncio.gather(episode("e1"), episode("e2"))
    assert first == ["Your notes, oldest first (1):\n- (turn 3) I am e1"]
    assert second == ["Your notes, oldest first (1):\n- (turn 3) I am e2"]


@pytest.mark.parametrize("era", ERAS)
async def test_an_entry_that_names_no_journal_gets_a_tool_error_saying_how(tmp_path, era):
    begun(tmp_path / "e1", 1)
    entry = {"command": "python", "args": ["-m", "zork_mcp.servers.memory"], "protocol": ERAS[era]}
    with memory_tools(tmp_path, "e1", "fork", entry) as server:
        refused, still = await calls(server, ("get_map", {}), ("read_notes", {}))
    assert refused[0] == "error" and "given no episode journal" in refused[1]
    assert '"--journal", "${ZORK_MCP_JOURNAL}"' in refused[1] and "no episode journal" in still[1]


async def test_bad_arguments_are_tool_errors_the_model_can_act_on(tmp_path):
    begun(tmp_path / "e1", 1)
    with memory_tools(tmp_path, "e1", "fork", stdio(None)) as server:
        empty, long, query = await calls(
            server,
            ("add_note", {"note": " \n "}),
            ("add_note", {"note": "x" * 1001}),
            ("search_history", {"query": ""}),
        )
    assert "note is empty" in empty[1] and "1,001 characters; keep it to 1,000" in long[1]
    assert "query is empty" in query[1]


@pytest.mark.parametrize("era", ERAS)
async def test_over_http_a_server_serves_the_journal_it_was_started_with(tmp_path, era):
    for episode in ("e1", "e2"):
        begun(tmp_path / episode, 5)
    journal, folder = tmp_path / "e1" / "journal.jsonl", tmp_path / "memory-e1"
    argv = ["-m", "zork_mcp.servers.memory", "--journal", str(journal), "--folder", str(folder)]
    with http_server([*argv, "--transport", "http", "--port", "{port}"]) as remote:
        entry = {"type": "http", "url": remote.url, "protocol": ERAS[era]}
        with memory_tools(tmp_path, "e1", "auto", entry) as first:
            await calls(first, ("add_note", {"note": "served"}))
            notes, found = await calls(  # a later turn: a new MCP session
                first, ("read_notes", {}), ("search_history", {"query": "troll"})
            )
    assert notes.endswith("- (turn 6) served") and found.startswith("1 of 5 past turns")
    assert [note.text for note in episode_journal(tmp_path / "e1", folder).notes()] == ["served"]
    assert sorted(os.listdir(tmp_path / "e1")) == ["journal.jsonl", "servers"]  # no notes there


async def test_a_memory_call_on_a_400_turn_journal_is_quick(tmp_path):
    """The journal is read afresh by every call: 400 turns of 2 KB answers in a few ms."""
    folder = tmp_path / "e1"
    journal = episode_journal(folder)
    journal.begin(WEST, "opening", 0)
    for turn in range(1, 401):
        place = [WEST, FOREST_1, FOREST_2, CLEARING][turn % 4]
        journal.record(played(turn, "north", "You are in a forest. " * 100, place))
    with memory_tools(tmp_path, "e1", "fork", stdio(None)) as server:
        async with server.open_session() as session:
            timings = []
            for _ in range(5):
                started = time.perf_counter()
                result = await session.call_tool("memory.get_map", {}, 20)
                timings.append(time.perf_counter() - started)
    assert not result.is_error and "Forest (2)" in result.content
    assert min(timings) < 0.1
