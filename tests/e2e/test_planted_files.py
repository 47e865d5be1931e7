"""No server can make the agent run its code, write through its links or change what it
remembers (issue 52). A hostile server (tests/support/planting_server.py), beside the
memory server, goes after the agent's files in the middle of a tool call; the agent is
killed there (kill -9, as a crash or an OOM kill would) and resumed.

Confined (the default), every plant is denied, and `--resume` plays on, the memory tools
answering from the agent's own record. Unconfined (`"sandbox": false`, the user's choice),
what it planted is there, and `--resume` stops with an error naming the file: nothing it
planted runs, and nothing outside is written through a link.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.llm_peers import HttpFault, peer_for
from tests.support.paths import ROOT
from tests.support.projects import app_process, write_project
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow

PLANTER = ROOT / "tests" / "support" / "planting_server.py"
MEMORY = {
    "command": "python",
    "args": ["-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"],
}
MEMORY_TOOLS = ("get_map", "find_path", "add_note", "read_notes", "search_history")
TOOLS = [*(f"memory.{name}" for name in MEMORY_TOOLS), "planter.plant"]  # as offered
NOTE = "the window behind the house is ajar"
TARGET = b"a file of the user's, outside every folder a server may write\n"


def planted_then_killed(tmp_path: Path, zork_game: Path, planter: dict) -> tuple[Path, Path]:
    """A first run that notes something in turn 2, and calls the planter in turn 4, where
    it is killed once the planter has tried everything. The project and the outside folder."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target").write_bytes(TARGET)
    entry = {**planter, "command": "python", "args": [str(PLANTER)],
             "env": {"PLANT_OUTSIDE": str(outside)}}  # fmt: skip
    project = write_project(tmp_path, {"memory": MEMORY, "planter": entry}, enabled=True)
    logs = tmp_path / "logs"
    attempts = logs / "e" / "servers" / "planter" / "attempts.json"
    first = [action_reply("north"), tool_calls_reply(("memory.add_note", {"note": NOTE})),
             action_reply("east"), action_reply("west"),
             tool_calls_reply(("planter.plant", {"hang": True})),
             *[action_reply("look") for _ in range(10)]]  # fmt: skip
    with peer_for("openai", first, TOOLS, api_key=None).serve() as url:
        killed = app_process(url, project, zork_game, logs, "--max-turns", "10")
        deadline = time.monotonic() + 90
        while not attempts.exists() and killed.poll() is None:
            assert time.monotonic() < deadline, "the planter was never called"
            time.sleep(0.05)
        time.sleep(0.2)  # its outcomes written whole
        os.killpg(killed.pid, signal.SIGKILL)
        _, stderr = killed.communicate()
    assert killed.returncode == -signal.SIGKILL, stderr.decode()
    return project, outside


def resumed(tmp_path: Path, project: Path, zork_game: Path) -> tuple[subprocess.Popen, str]:
    later = [tool_calls_reply(("memory.read_notes", {}), ("memory.search_history",
             {"query": "window"})), *[action_reply("look") for _ in range(3)]]  # fmt: skip
    with peer_for("openai", later, TOOLS, api_key=None).serve() as url:
        run = app_process(
            url, project, zork_game, tmp_path / "logs", "--resume", "--max-turns", "6"
        )
        _, stderr = run.communicate(timeout=120)
    return run, stderr.decode()


def test_a_confined_server_plants_nothing_and_the_resumed_episode_plays_on(tmp_path, zork_game):
    project, outside = planted_then_killed(tmp_path, zork_game, {})
    episode = tmp_path / "logs" / "e"
    attempts = json.loads((episode / "servers" / "planter" / "attempts.json").read_text())
    assert len(attempts) == 16 and all(o.startswith("denied: E") for o in attempts.values()), (
        attempts
    )
    run, stderr = resumed(tmp_path, project, zork_game)
    assert run.returncode == 0, stderr
    assert not (outside / "ran").exists(), "a planted pickle ran"
    assert (outside / "target").read_bytes() == TARGET
    assert sorted(os.listdir(outside)) == ["target"]
    for name in os.listdir(episode):
        assert not (episode / name).is_symlink(), name
    assert not (episode / "checkpoint.pickle").exists()
    logged = [json.loads(line) for line in (episode / "events.jsonl").read_text().splitlines()]
    results = [e for e in logged if e["event_type"] == "mcp_tool_result"]
    notes, found = (e["result_preview"] for e in results[-2:])
    assert notes == f"Your notes, oldest first (1):\n- (turn 2) {NOTE}"
    assert found.startswith("3 of 3 past turns match 'window'")  # the agent's record: turns 1-3
    turns = [e["turn"] for e in logged if e["event_type"] == "turn_complete"]
    assert turns == [1, 2, 3, 4, 5, 6]  # turn 4 played again after the kill


def test_an_unconfined_server_s_plants_stop_the_resume_with_an_error_naming_the_file(
    tmp_path, zork_game
):
    project, outside = planted_then_killed(tmp_path, zork_game, {"sandbox": False})
    episode = tmp_path / "logs" / "e"
    attempts = json.loads((episode / "servers" / "planter" / "attempts.json").read_text())
    assert attempts["link checkpoint.json"] == "done", attempts  # unconfined: it could
    run, stderr = resumed(tmp_path, project, zork_game)
    assert run.returncode != 0
    assert re.search(rf"{episode}/[a-z.]+ is a symbolic link, not the file zork-mcp made", stderr)
    assert "Traceback" not in stderr
    assert not (outside / "ran").exists(), "a planted pickle ran"
    assert (outside / "target").read_bytes() == TARGET


def test_a_sweep_episode_resumed_after_a_plant_plays_on_from_its_own_checkpoint(
    tmp_path, zork_game
):
    """`eval --resume` reads the same files: an episode that failed after the planter's call
    goes on from the checkpoint the agent wrote, and nothing planted runs."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target").write_bytes(TARGET)
    entry = {"command": "python", "args": [str(PLANTER)], "env": {"PLANT_OUTSIDE": str(outside)}}
    project = write_project(tmp_path, {"memory": MEMORY, "planter": entry}, enabled=True)
    results = tmp_path / "results.sqlite"
    spec = ["eval", "--config", str(project), "--results", str(results), "--plain",
            "--model", "local:m", "--mcp", "on", "--episodes", "1", "--max-turns", "5",
            "--parallel", "1", "--game", str(zork_game)]  # fmt: skip
    first = [action_reply("north"), tool_calls_reply(("memory.add_note", {"note": NOTE})),
             action_reply("east"), tool_calls_reply(("planter.plant", {})),
             action_reply("west"), HttpFault(400, "no")]  # fmt: skip
    with peer_for("openai", first, TOOLS, api_key=None).serve() as url:
        assert main([*spec, "--base-url", f"{url}/v1"]) == 1
    [failed] = SqliteResultStore(results).episodes()
    assert failed.failed and failed.turns == 3
    (episode,) = (tmp_path / "logs").iterdir()
    attempts = json.loads((episode / "servers" / "planter" / "attempts.json").read_text())
    assert all(outcome.startswith("denied: E") for outcome in attempts.values()), attempts
    later = [tool_calls_reply(("memory.read_notes", {})), action_reply("look"),
             action_reply("look")]  # fmt: skip
    with peer_for("openai", later, TOOLS, api_key=None).serve() as url:
        assert main([*spec, "--base-url", f"{url}/v1", "--resume"]) == 0
    [resumed] = SqliteResultStore(results).episodes()
    assert not resumed.failed and resumed.turns == 5
    assert [point.turn for point in resumed.trajectory] == [1, 2, 3, 4, 5]
    logged = [json.loads(line) for line in (episode / "events.jsonl").read_text().splitlines()]
    notes = [e for e in logged if e.get("tool_name") == "memory.read_notes"][-1]
    assert notes["result_preview"] == f"Your notes, oldest first (1):\n- (turn 2) {NOTE}"
    assert not (outside / "ran").exists() and (outside / "target").read_bytes() == TARGET
