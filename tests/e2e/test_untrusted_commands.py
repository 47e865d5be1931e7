"""The LLM's commands are untrusted input: none may crash or halt the emulator, write a file,
end the game behind the episode's back, or lose a logged turn (issue 17).

The fuzzing runs in child processes, so a crash is a failing test, not a dead test runner.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from mcp import Client, StdioServerParameters

from tests.support.agents import agent_for
from tests.support.command_fuzz import commands
from tests.support.llm_peers import peer_for
from zork_mcp.adapters.fake_game import FakeGameEnv
from zork_mcp.adapters.fake_llm import ScriptedLLM, action_reply
from zork_mcp.adapters.memory_telemetry import InMemoryTelemetry
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.errors import GameHaltedError, LLMError
from zork_mcp.domain.events import Level

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def run_child(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    storage = cwd.parent / f"{cwd.name}-hypothesis"  # not the folder that must stay empty
    env = {**os.environ, "PYTHONPATH": str(REPO), "HYPOTHESIS_STORAGE_DIRECTORY": str(storage)}
    return subprocess.run(
        [sys.executable, "-m", "tests.support.command_fuzz", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_fuzzed_commands_through_the_jericho_adapter(tmp_path, zork_game):
    child = run_child([str(zork_game), "150"], tmp_path)
    assert child.returncode == 0, f"exit {child.returncode}\n{child.stdout}\n{child.stderr}"
    assert list(tmp_path.iterdir()) == []


def test_a_halted_emulator_is_never_stepped_again(tmp_path, zork_game):
    child = run_child([str(zork_game), "halt"], tmp_path)
    assert child.returncode == 0, f"exit {child.returncode}\n{child.stdout}\n{child.stderr}"


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(sequence=commands)
def test_fuzzed_play_action_through_the_text_adventure_server(
    sequence, zork_game, tmp_path_factory
):
    folder = tmp_path_factory.mktemp("server-cwd")
    reports = asyncio.run(play_over_mcp(sequence, zork_game, folder))
    moves = [int(report.rsplit("Moves: ", 1)[1].rstrip("]")) for report in reports]
    assert moves == sorted(moves), "a command took moves back (restart or restore)"
    assert not any("GAME OVER" in report for report in reports)
    assert list(folder.iterdir()) == [], "the server wrote into its working directory"


async def play_over_mcp(sequence: list[str], game: Path, cwd: Path) -> list[str]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "zork_mcp.servers.text_adventure"],
        env={"GAME": str(game), "PATH": os.environ.get("PATH", "")},
        cwd=str(cwd),
    )
    reports = []
    async with Client(server) as client:
        for raw in [*sequence, "look"]:
            result = await client.call_tool("play_action", {"action": raw})
            text = result.content[0].text
            if result.is_error:
                assert not raw.strip(), f"{raw!r} failed: {text}"
                continue
            reports.append(text)
    return reports


class HaltingGame(FakeGameEnv):
    def step(self, action: str):
        if action == "halt":
            raise GameHaltedError("The Z-machine halted on the command 'halt'.")
        return super().step(action)


def orchestrate(game, llm) -> tuple[Orchestrator, InMemoryTelemetry]:
    telemetry = InMemoryTelemetry()
    orchestrator = Orchestrator(
        game=game,
        agent=agent_for(llm, telemetry=telemetry),
        telemetry=telemetry,
        episode_id="t",
        max_turns=10,
    )
    return orchestrator, telemetry


def test_a_halt_ends_the_episode_with_its_own_reason():
    orchestrator, telemetry = orchestrate(
        HaltingGame(), ScriptedLLM([action_reply("north"), action_reply("halt")])
    )
    summary = orchestrator.run()
    [end] = telemetry.of_type("episode_end")
    assert (summary.end_reason, summary.turns) == ("emulator_halted", 1)
    assert end.fields["end_reason"] == "emulator_halted" and end.level == Level.ERROR
    assert "halted" in end.fields["error"]


def test_an_episode_ending_on_an_error_logs_what_ended_it():
    failure = LLMError("openai: HTTP 500 after 3 attempts", provider="openai", status=500)
    orchestrator, telemetry = orchestrate(FakeGameEnv(), ScriptedLLM([failure]))
    with pytest.raises(LLMError):
        orchestrator.run()
    [end] = telemetry.of_type("episode_end")
    assert end.fields["end_reason"] == "llm_error" and "HTTP 500" in end.fields["error"]


def test_a_killed_episode_keeps_every_completed_turn_in_both_logs(tmp_path, zork_game):
    peer = peer_for("openai", [action_reply("look")] * 5000, [], api_key=None)
    with peer.serve() as url:
        app = subprocess.Popen(
            [
                sys.executable, "-m", "zork_mcp.app", "--provider", "local",
                "--base-url", f"{url}/v1", "--model", "looker", "--game", str(zork_game),
                "--max-turns", "5000", "--plain", "--no-mcp", "--log-dir", str(tmp_path),
                "--episode-id", "killed",
            ],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        events_path = tmp_path / "killed" / "events.jsonl"
        wait_for_turns(events_path, 40, app)
        app.send_signal(signal.SIGKILL)
        app.wait(timeout=10)
        answered = len(peer.requests)
    lines = events_path.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]  # a torn line would not parse
    turns = [event["turn"] for event in events if event["event_type"] == "turn_complete"]
    logged = (tmp_path / "killed" / "episode.log").read_text(encoding="utf-8").splitlines()
    actions = [line for line in logged if "Agent action: look" in line]
    assert turns == list(range(1, len(turns) + 1))
    assert len(actions) == len(turns) >= answered - 1, "more than the turn in progress was lost"


def wait_for_turns(path: Path, count: int, app: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and app.poll() is None:
        if path.exists() and path.read_text(encoding="utf-8").count('"turn_complete"') >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"the episode did not log {count} turns (exit {app.poll()})")
