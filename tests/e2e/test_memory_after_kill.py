"""The agent's notes outlive the agent (issue 45): a note written at turn 2 by one memory
server process is read, after kill -9 of the whole app and `--resume`, by another, and the
resumed turns go on from the checkpoint's number."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.support.llm_peers import peer_for
from tests.support.projects import app_process, write_project
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.adapters.storage.checkpoint_file import FileCheckpoints

pytestmark = pytest.mark.slow

MEMORY = {
    "command": "python",
    "args": ["-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"],
}
TOOLS = [f"memory.{name}" for name in ("get_map", "find_path", "add_note", "read_notes")]
NOTE = "the window behind the house is ajar"


def turns_recorded(folder: Path) -> int:
    journal = folder / "journal.jsonl"
    text = journal.read_text() if journal.exists() else ""
    return sum('"command"' in line for line in text.splitlines())


def events(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]


def test_a_note_of_turn_2_is_read_after_kill_9_and_resume(tmp_path, zork_game):
    project = write_project(tmp_path, {"memory": MEMORY}, enabled=True)
    logs, folder = tmp_path / "logs", tmp_path / "logs" / "e"
    first = [action_reply("north"), tool_calls_reply(("memory.add_note", {"note": NOTE})),
             *[action_reply("look") for _ in range(40)]]  # fmt: skip
    with peer_for("openai", first, TOOLS, api_key=None).serve() as url:
        killed = app_process(url, project, zork_game, logs, "--max-turns", "40")
        deadline = time.monotonic() + 60
        while turns_recorded(folder) < 5 and killed.poll() is None:
            assert time.monotonic() < deadline, "the first run did not play 5 turns"
            time.sleep(0.05)
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait()
    assert turns_recorded(folder) >= 5 and killed.returncode == -signal.SIGKILL
    checkpoint_turn = FileCheckpoints(folder).load().turn
    later = [tool_calls_reply(("memory.read_notes", {})), action_reply("look"),
             action_reply("look")]  # fmt: skip
    with peer_for("openai", later, TOOLS, api_key=None).serve() as url:
        more = str(checkpoint_turn + 2)
        resumed = app_process(url, project, zork_game, logs, "--resume", "--max-turns", more)
        _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr.decode()
    logged = events(folder)
    results = [e for e in logged if e["event_type"] == "mcp_tool_result"]
    assert results[-1]["tool_name"] == "memory.read_notes"
    assert f"(turn 2) {NOTE}" in results[-1]["result_preview"]
    resume = max(i for i, e in enumerate(logged) if e["event_type"] == "episode_resumed")
    after = [e["turn"] for e in logged[resume:] if e["event_type"] == "turn_complete"]
    assert logged[resume]["turn"] == checkpoint_turn
    assert after == [checkpoint_turn + 1, checkpoint_turn + 2]
    assert checkpoint_turn >= 4  # the checkpoint of a turn after the note's
