"""The LLM's commands are untrusted input (issues 17 and 25): none may reach a verb that ends,
saves, restores or transcribes the game, nor the interpreter's own commands; none may crash
the process that asked; and if the emulator dies anyway, the game goes on or ends cleanly.

Every case runs against the real emulator, which runs in a game process of its own: a
crash there is a failing assertion here, never a dead test runner.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.support.agents import agent_for
from tests.support.command_fuzz import CORPUS, commands, play_checked, private_folder
from tests.support.llm_peers import peer_for
from tests.support.processes import live_descendants
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.game.jericho import JerichoGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.errors import GameEmulatorLostError, GameHaltedError, LLMError
from zork_mcp.domain.facts.events import EventType, Level
from zork_mcp.domain.game.trilogy import ZORK1

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def game(zork_game):
    env = JerichoGameEnv(zork_game, seed=12)
    yield env
    env.close()


@pytest.mark.parametrize("category", sorted(CORPUS))
def test_the_corpus_reaches_no_forbidden_verb_and_kills_no_emulator(game, category):
    play_checked(game, CORPUS[category])


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(sequence=commands)
def test_mixed_commands_reach_no_forbidden_verb_and_kill_no_emulator(game, sequence):
    play_checked(game, sequence)


def test_the_game_process_ends_and_its_folder_goes_with_close(zork_game):
    env = JerichoGameEnv(zork_game, seed=12)
    env.reset()
    pid, folder = env.process_id, private_folder(env)
    env.close()
    assert not folder.exists() and pid not in live_descendants(os.getpid())


def test_a_game_process_killed_by_a_signal_is_replaced_at_the_same_moment(zork_game):
    events = []
    env = JerichoGameEnv(zork_game, seed=12, on_event=events.append)
    try:
        env.reset()
        opened = env.step("open mailbox")
        snapshot, old_pid = env.save_state(), env.process_id
        os.kill(old_pid, signal.SIGSEGV)
        crashed = env.step("take leaflet")
        assert crashed.text.startswith("[The game's interpreter failed")
        assert (crashed.moves, env.save_state()) == (opened.moves, snapshot)
        assert env.process_id != old_pid and env.restarts == 1
        [event] = events
        assert event.type == EventType.GAME_EMULATOR_RESTARTED and event.level == Level.WARNING
        assert "SIGSEGV" in event.fields["cause"] and event.fields["command"] == "take leaflet"
        assert env.step("take leaflet").text == "Taken."
    finally:
        env.close()


@pytest.mark.parametrize("line", ["#comm. " + "a" * 40, "scripting. " + "c" * 35])
def test_the_input_that_corrupted_frotzs_heap_cannot_take_the_parent_down(zork_game, line):
    """Past the guard, these lines overflow Frotz's file-name buffer (in-process, Jericho then
    aborted on close): here the game goes on (the corrupted game process either still
    plays or dies at the next command and is replaced where it was), and every game
    process ends without a trace."""
    env = JerichoGameEnv(zork_game, seed=12)
    try:
        env.reset()
        process = env._process
        assert process is not None
        folder, pid = process.folder, process.pid
        process.ask({"op": "step", "command": line})
        opened = env.step("open mailbox")
        if opened.text.startswith("[The game's interpreter failed"):
            assert env.restarts == 1 and opened.moves == 0
            opened = env.step("open mailbox")
        assert opened.text.endswith("reveals a leaflet.")
    finally:
        env.close()
    assert not folder.exists() and pid not in live_descendants(os.getpid())


def test_when_no_new_game_process_can_take_over_the_game_is_lost_with_a_clear_error(
    zork_game, tmp_path
):
    story = tmp_path / "zork1.z3"
    shutil.copy(zork_game, story)
    env = JerichoGameEnv(story, seed=12)
    env.reset()
    story.unlink()
    os.kill(env.process_id, signal.SIGKILL)
    with pytest.raises(GameEmulatorLostError, match="could not take over the game"):
        env.step("north")
    with pytest.raises(GameHaltedError):
        env.step("north")
    env.close()


class HaltingGame(FakeGameEnv):
    def step(self, action: str):
        if action == "halt":
            raise GameHaltedError("The Z-machine halted on the command 'halt'.")
        if action == "lose":
            raise GameEmulatorLostError("The game process died and could not be replaced.")
        return super().step(action)


def orchestrate(game, llm) -> tuple[Orchestrator, FakeTelemetry]:
    telemetry = FakeTelemetry()
    orchestrator = Orchestrator(
        profile=ZORK1,
        game=game,
        agent=agent_for(llm, telemetry=telemetry),
        telemetry=telemetry,
        episode_id="t",
        max_turns=10,
    )
    return orchestrator, telemetry


@pytest.mark.parametrize(
    ("action", "reason"), [("halt", "emulator_halted"), ("lose", "emulator_lost")]
)
def test_a_halt_or_a_lost_emulator_ends_the_episode_with_its_own_reason(action, reason):
    orchestrator, telemetry = orchestrate(
        HaltingGame(), ScriptedLLM([action_reply("north"), action_reply(action)])
    )
    summary = orchestrator.run()
    [end] = telemetry.of_type("episode_end")
    assert (summary.end_reason, summary.turns) == (reason, 1)
    assert end.fields["end_reason"] == reason and end.level == Level.ERROR


def test_an_episode_ending_on_an_error_logs_what_ended_it():
    failure = LLMError("openai: HTTP 500 after 3 attempts", provider="openai", status=500)
    orchestrator, telemetry = orchestrate(FakeGameEnv(), ScriptedLLM([failure]))
    with pytest.raises(LLMError):
        orchestrator.run()
    [end] = telemetry.of_type("episode_end")
    assert end.fields["end_reason"] == "llm_error" and "HTTP 500" in end.fields["error"]


def run_app(url: str, game: Path, log_dir: Path, *more: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "zork_mcp.app", "--provider", "local",
            "--base-url", f"{url}/v1", "--model", "looker", "--game", str(game),
            "--plain", "--no-mcp", "--log-dir", str(log_dir), "--episode-id", "e", *more,
        ],
        cwd=log_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(log_dir)},
    )  # fmt: skip


def emulator_of(app: subprocess.Popen[str]) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for pid in live_descendants(app.pid):
            if b"emulator_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        time.sleep(0.05)
    raise AssertionError("the app started no game process")


def events_of(log_dir: Path) -> list[dict]:
    lines = (log_dir / "e" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_unencodable_actions_are_logged_escaped_and_the_episode_plays_on(tmp_path, zork_game):
    replies = [action_reply("\ud800quit"), action_reply("open\udfff mailbox")] * 3
    peer = peer_for("openai", replies, [], api_key=None)
    with peer.serve() as url:
        app = run_app(url, zork_game, tmp_path, "--max-turns", "6")
        _, err = app.communicate(timeout=120)
    assert app.returncode == 0, err
    turns = [e for e in events_of(tmp_path) if e["event_type"] == "turn_complete"]
    assert [turn["action"] for turn in turns] == ["\ud800quit", "open\udfff mailbox"] * 3
    assert turns[-1]["moves"] == 3  # three opens played, three quits refused
    log = (tmp_path / "e" / "episode.log").read_text(encoding="utf-8")
    assert "Agent action: \\ud800quit" in log
    assert [p.name for p in tmp_path.iterdir()] == ["e"], "a game folder was left behind"


@pytest.mark.parametrize("story_stays", [True, False])
def test_a_killed_game_process_is_replaced_or_ends_the_episode_cleanly(
    tmp_path, zork_game, story_stays
):
    story = tmp_path / "story.z3"
    shutil.copy(zork_game, story)
    peer = peer_for("openai", [action_reply("wait")] * 200, [], api_key=None)
    with peer.serve() as url:
        app = run_app(url, story, tmp_path, "--max-turns", "40")
        while '"turn_complete"' not in _events_text(tmp_path):
            assert app.poll() is None, app.communicate()
            time.sleep(0.02)
        if not story_stays:
            story.unlink()
        os.kill(emulator_of(app), signal.SIGSEGV)
        out, err = app.communicate(timeout=120)
    events = events_of(tmp_path)
    [end] = [e for e in events if e["event_type"] == "episode_end"]
    restarted = [e for e in events if e["event_type"] == "game_emulator_restarted"]
    if story_stays:
        assert (app.returncode, end["end_reason"], len(restarted)) == (0, "turn_limit", 1)
        assert "SIGSEGV" in restarted[0]["cause"]
    else:
        assert (app.returncode, end["end_reason"]) == (1, "emulator_lost"), err
        assert "could not take over the game" in end["error"] and "emulator_lost" in out
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == (["e", "story.z3"] if story_stays else ["e"]), "a game folder was left"


def _events_text(log_dir: Path) -> str:
    path = log_dir / "e" / "events.jsonl"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_killed_episode_keeps_every_completed_turn_in_both_logs(tmp_path, zork_game):
    peer = peer_for("openai", [action_reply("look")] * 5000, [], api_key=None)
    with peer.serve() as url:
        app = run_app(url, zork_game, tmp_path, "--max-turns", "5000")
        events_path = tmp_path / "e" / "events.jsonl"
        wait_for_turns(events_path, 40, app)
        game_process = emulator_of(app)
        app.send_signal(signal.SIGKILL)
        app.wait(timeout=10)
        answered = len(peer.requests)
    lines = events_path.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]  # a torn line would not parse
    turns = [event["turn"] for event in events if event["event_type"] == "turn_complete"]
    logged = (tmp_path / "e" / "episode.log").read_text(encoding="utf-8").splitlines()
    actions = [line for line in logged if "Agent action: look" in line]
    assert turns == list(range(1, len(turns) + 1))
    assert len(turns) >= answered - 1, "more than the turn in progress was lost"
    assert actions == [
        f"[INFO] Turn {turn}: Agent action: look" for turn in range(1, len(actions) + 1)
    ]
    # An event is written to events.jsonl, then to episode.log: the kill may land between the
    # two writes of the turn in progress, and the human log lacks that one turn.
    assert len(turns) - 1 <= len(actions) <= len(turns), "the human log lost a completed turn"
    wait_until_gone(game_process)
    assert [p.name for p in tmp_path.iterdir()] == ["e"], "the game folder outlived the app"


def wait_for_turns(path: Path, count: int, app: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and app.poll() is None:
        if path.exists() and path.read_text(encoding="utf-8").count('"turn_complete"') >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"the episode did not log {count} turns (exit {app.poll()})")


def wait_until_gone(pid: int, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return
        time.sleep(0.02)
    assert not Path(f"/proc/{pid}").exists(), f"process {pid} outlived its parent"


PLAYING_PARENT = """
import sys
from zork_mcp.adapters.game.jericho import JerichoGameEnv
env = JerichoGameEnv(sys.argv[1], seed=12)
env.reset()
print("playing", flush=True)
while True:
    env.step("north"); env.peek("inventory"); env.step("south")
"""


def test_a_parent_killed_at_any_moment_leaves_no_game_process_nor_folder(tmp_path, zork_game):
    """SIGKILL lands mid-step, mid-reply or between steps: the game process sees its pipe
    close (or its parent-death signal) and ends, removing its folder, every time."""
    folders = tmp_path / "tmp"
    folders.mkdir()
    delays = random.Random(25)
    games = []
    for _ in range(12):
        parent = subprocess.Popen(
            [sys.executable, "-c", PLAYING_PARENT, str(zork_game)],
            stdout=subprocess.PIPE,
            env={**os.environ, "TMPDIR": str(folders)},
        )
        assert parent.stdout is not None and parent.stdout.readline() == b"playing\n"
        games += live_descendants(parent.pid)
        time.sleep(delays.uniform(0, 0.1))
        parent.kill()
        parent.wait()
    for game in games:
        wait_until_gone(game)
    assert list(folders.iterdir()) == []


NEVER_CLOSED = """
import sys
from zork_mcp.adapters.game.jericho import JerichoGameEnv
game = JerichoGameEnv(sys.argv[1], seed=12, forked=True)
game.reset()
game.step("north")
"""


def test_a_forked_game_never_closed_ends_with_the_interpreter_and_leaves_nothing(
    tmp_path, zork_game
):
    """multiprocessing waits at exit for its children that are not daemons: a forked game
    never closed (an exception on the way) held its parent at exit for ever."""
    done = subprocess.run(
        [sys.executable, "-c", NEVER_CLOSED, str(zork_game)],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    deadline = time.monotonic() + 5
    while list(tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.iterdir()) == [], "the game's folder or the forkserver's outlived it"
