"""What a memory-server tool call costs beside a plain one, over forked stdio servers.

A 400-turn journal (answers of 200 to `--answer-chars` characters, 4,000 by default: ~870
KB) is written in an episode folder; the memory server is given that journal
(`--journal ${ZORK_MCP_JOURNAL}`, as the app's configuration gives it) and the reasoning
server serves the plain call. "call": one tool call in an open session, the two servers'
calls interleaved, after one unmeasured call each, so the calls measured find the journal
read and the map drawn. "turn": a fresh session each time, as the agent opens one a turn
(spare ready, `--gap` seconds between turns), one call, close: a fresh process, whose
memory call reads the journal's snapshot and draws only the turns since. Both MCP eras:
the handshake (pinned to 2025-11-25) and the stateless era the client speaks by default
(2026-07-28); `--quick` measures the stateless era alone.

    python -m benchmarks.memory_tool [--calls 50] [--turns 30] [--gap 0.2] [--answer-chars 4000]
        [--eras handshake,stateless] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path, PurePosixPath
from typing import Any

from benchmarks.support import listed, parse_arguments, print_table, timing_row
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.adapters.storage.journal_file import FileJournal
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.servers.server_places import EpisodePlaces, placed

TURNS = 400
ERAS = {"handshake": "2025-11-25", "stateless": None}
THOUGHT = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
CALLS = {  # what each server is asked
    "reasoning.sequentialthinking": THOUGHT,
    "memory.get_map": {},
    "memory.search_history": {"query": "troll"},
    "memory.find_path": {"from_room": "Room 1", "to_room": "here"},
}
COMMANDS = ["north", "south", "east", "west", "up", "down", "take lamp", "open door", "kill troll"]


def write_journal(folder: Path, turns: int = TURNS, answer_chars: int = 4000) -> int:
    """A journal of `turns` turns over 60 rooms, five of them named "Forest"; its size."""
    chance = random.Random(12)
    rooms = [Place(f"Room {n}" if n >= 5 else "Forest", 100 + n) for n in range(60)]
    journal = FileJournal.episode(folder)
    journal.begin(rooms[0], "ZORK I: The Great Underground Empire", 0)
    for turn in range(1, turns + 1):
        maze = "You are in a maze of twisty little passages. " * (answer_chars // 40 + 1)
        answer = maze[: chance.randint(200, answer_chars)]
        command = chance.choice(COMMANDS)
        journal.record(PlayedTurn(turn, command, answer, chance.choice(rooms)))
    return journal.journal_path.stat().st_size


def servers(folder: Path, pin: str | None) -> dict[str, McpStdioToolServer]:
    """The memory and the reasoning server, each forked from a fork server of its own."""
    modules = {
        "memory": ("-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"),
        "reasoning": ("-m", "zork_mcp.servers.reasoning"),
    }
    places = EpisodePlaces(PurePosixPath(folder.absolute()), PurePosixPath(Path.home()))
    built = {}
    for name, args in modules.items():
        entry = MCPServerConfig(
            command="python", args=args, env={"DISABLE_THOUGHT_LOGGING": "true"}, protocol=pin
        )
        Path(places.server_folder(name)).mkdir(parents=True, exist_ok=True)
        built[name] = stdio_tool_server(
            {name: placed(name, entry, places)},
            server_start="fork",
            stderr_path=folder.parent / f"{name}.stderr.log",
        )
        built[name].fork_server_ready(60)
        built[name].warm_up()
    return built


async def calls(tools: Mapping[str, McpStdioToolServer], rounds: int) -> dict[str, list[float]]:
    """Each call of CALLS in its open session, interleaved, `rounds` times (after one warm-up)."""
    timings: dict[str, list[float]] = {name: [] for name in CALLS}
    async with AsyncExitStack() as stack:
        sessions = {
            name: await stack.enter_async_context(server.open_session())
            for name, server in tools.items()
        }
        for round_ in range(rounds + 1):
            for name, arguments in CALLS.items():
                session = sessions[name.split(".")[0]]
                started = time.perf_counter()
                result = await session.call_tool(name, arguments, 30)
                if round_:
                    timings[name].append(time.perf_counter() - started)
                assert not result.is_error, result.error_message
    return timings


async def turns(
    tools: Mapping[str, McpStdioToolServer], count: int, gap: float
) -> dict[str, list[float]]:
    """A fresh session, one call and close, for get_map and the plain call in turn."""
    timings: dict[str, list[float]] = {"reasoning.sequentialthinking": [], "memory.get_map": []}
    for turn in range(count + 1):
        for name in timings:
            await asyncio.sleep(gap)  # the spare gets ready, as while a model thinks
            started = time.perf_counter()
            async with tools[name.split(".")[0]].open_session() as session:
                result = await session.call_tool(name, CALLS[name], 30)
            if turn:
                timings[name].append(time.perf_counter() - started)
            assert not result.is_error, result.error_message
    return timings


def rows(kind: str, era: str, timings: Mapping[str, list[float]]) -> list[list[str]]:
    plain = statistics.median(timings["reasoning.sequentialthinking"])
    table = []
    for name, seconds in timings.items():
        row = timing_row(f"{kind}, {era}: {name}", seconds)
        more = 1000 * (statistics.median(seconds) - plain)
        table.append([*row, "" if name.startswith("reasoning") else f"{more:+.2f}"])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--gap", type=float, default=0.2)
    parser.add_argument("--answer-chars", type=int, default=4000, help="the longest answer")
    parser.add_argument("--eras", default=",".join(ERAS), help="handshake, stateless or both")
    # a quick run: the default (stateless) era alone; each era starts two fork servers, ~3 s
    quick = {"calls": 2, "turns": 2, "gap": 0.0, "eras": "stateless"}
    arguments = parse_arguments(parser, quick)
    eras = {era: ERAS[era] for era in listed(parser, "--eras", arguments.eras, list(ERAS))}
    table: list[list[Any]] = []
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory) / "episode"
        size = write_journal(folder, TURNS, arguments.answer_chars)
        for era, pin in eras.items():
            tools = servers(folder, pin)
            try:
                per_call = asyncio.run(calls(tools, arguments.calls))
                per_turn = asyncio.run(turns(tools, arguments.turns, arguments.gap))
                table += rows("call", era, per_call) + rows("turn", era, per_turn)
            finally:
                for server in tools.values():
                    server.close()
    print(f"ms; a {TURNS}-turn journal of {size / 1e6:.2f} MB; forked servers")
    print_table(["what", "n", "median", "p95", "max", "median vs plain"], table)


if __name__ == "__main__":
    main()
