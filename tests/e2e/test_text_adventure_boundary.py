"""The text-adventure MCP server as an untrusted client meets it (issue 25): every request is
answered, no action reaches a forbidden verb, overlapping calls play one at a time in
arrival order, and its game process and private folder end with it, on SIGTERM or SIGKILL."""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from mcp import Client, StdioServerParameters

from tests.support.command_fuzz import CORPUS, FORBIDDEN_ANSWERS, commands
from tests.support.processes import live_descendants

pytestmark = pytest.mark.slow
SERVER = [sys.executable, "-m", "zork_mcp.servers.text_adventure"]


def server_env(game: Path, tmp: Path) -> dict[str, str]:
    return {"GAME": str(game), "PATH": os.environ.get("PATH", ""), "TMPDIR": str(tmp)}


def moves_of(report: str) -> int:
    return int(report.rsplit("Moves: ", 1)[1].split("]")[0])


async def play(game: Path, tmp: Path, actions: list[str], *, together: bool = False) -> list:
    server = StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=server_env(game, tmp))
    async with Client(server) as client:
        calls = [client.call_tool("play_action", {"action": action}) for action in actions]
        if together:
            return list(await asyncio.gather(*calls))
        return [await call for call in calls]


def sendable(actions: list[str]) -> list[str]:
    """What an SDK client can send at all: it cannot encode a lone surrogate (the raw test
    below sends one)."""
    return [action.encode("utf-8", "replace").decode() for action in actions]


def assert_played_safely(game: Path, tmp: Path, actions: list[str]) -> None:
    results = asyncio.run(play(game, tmp, [*actions, "look"]))
    assert len(results) == len(actions) + 1, "a call went unanswered"
    errors = [action for action, r in zip(actions, results, strict=False) if r.is_error]
    assert all(not action.strip() for action in errors), f"refused as errors: {errors}"
    reports = [r.content[0].text for r in results if not r.is_error]
    assert not [r for r in reports if any(answer in r for answer in FORBIDDEN_ANSWERS)]
    moves = [moves_of(report) for report in reports]
    assert moves == sorted(moves), "a command took moves back (restart or restore)"
    assert list(tmp.iterdir()) == [], "the game's folder outlived the server"


def test_the_corpus_over_mcp_is_answered_and_reaches_no_forbidden_verb(zork_game, tmp_path):
    assert_played_safely(zork_game, tmp_path, sendable([a for g in CORPUS.values() for a in g]))


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(sequence=commands)
def test_mixed_commands_over_mcp_are_answered_and_reach_no_forbidden_verb(
    sequence, zork_game, tmp_path_factory
):
    assert_played_safely(zork_game, tmp_path_factory.mktemp("server"), sendable(sequence))


def test_overlapping_calls_play_one_at_a_time_in_arrival_order(zork_game, tmp_path):
    results = asyncio.run(play(zork_game, tmp_path, ["wait"] * 24, together=True))
    moves = [moves_of(r.content[0].text) for r in results]
    assert moves == [3 * n for n in range(1, 25)], "Zork's wait passes three moves each"
    assert not any(r.is_error for r in results)


class RawClient:
    """JSON-RPC lines to a server process, as a client that sends anything would."""

    def __init__(self, game: Path, tmp: Path) -> None:
        self.process = subprocess.Popen(
            SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=server_env(game, tmp)
        )
        hello = {"protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "raw", "version": "1"}}  # fmt: skip
        self.ask(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}))
        self.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def send(self, line: str) -> None:
        self.process.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def ask(self, line: str) -> dict:
        self.send(line)
        ready, _, _ = select.select([self.process.stdout], [], [], 20)
        assert ready, f"no answer to {line}"
        return json.loads(self.process.stdout.readline())  # type: ignore[union-attr]

    def play(self, call_id: int, action_json: str) -> dict:
        return self.ask(
            f'{{"jsonrpc":"2.0","id":{call_id},"method":"tools/call","params":'
            f'{{"name":"play_action","arguments":{{"action":{action_json}}}}}}}'
        )


def test_a_request_holding_a_lone_surrogate_gets_an_error_that_says_where(zork_game, tmp_path):
    client = RawClient(zork_game, tmp_path)
    try:
        refused = client.play(1, '"\\ud800quit"')
        assert refused["id"] == 1 and refused["error"]["code"] == -32602
        assert "params.arguments.action" in refused["error"]["message"]
        played = client.play(2, '"open mailbox"')
        assert "Opening the small mailbox" in played["result"]["content"][0]["text"]
    finally:
        client.process.stdin.close()  # type: ignore[union-attr]
        client.process.wait(10)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_the_game_process_and_its_folder_end_with_the_server(zork_game, tmp_path, how):
    client = RawClient(zork_game, tmp_path)
    client.play(1, '"north"')
    [game] = live_descendants(client.process.pid)
    assert len(list(tmp_path.iterdir())) == 1, "the game runs in one private folder"
    client.process.send_signal(how)
    client.process.wait(10)
    deadline = time.monotonic() + 5
    while (Path(f"/proc/{game}").exists() or list(tmp_path.iterdir())) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.02)
    assert not Path(f"/proc/{game}").exists(), "the game process outlived the server"
    assert list(tmp_path.iterdir()) == [], "the game's folder outlived the server"
