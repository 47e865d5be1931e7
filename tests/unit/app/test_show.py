"""`zork-mcp show` and episode.log tell an episode as a reader follows it (issue 46): each
turn's command, the game's answer, a death, the score's change and the state after it; a
tool's result cut, with its whole size; the mark where it was resumed or extended; every text
from the LLM, the game or a server inert. Played by a scripted LLM against the fake game and
logged by the real writer, read back by the one reader."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.agents import agent_for
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.storage.checkpoint_file import FileCheckpoints
from zork_mcp.adapters.telemetry.jsonl import JsonlTelemetry, read_events
from zork_mcp.app.episode_view import episode_view
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.app.show import episode_lines, main
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.facts.episode_facts import EpisodeStarted, TurnCompleted
from zork_mcp.domain.facts.events import Event, EventType
from zork_mcp.domain.game.trilogy import ZORK1

DEATH = "You jump.\n\n    ****  You have died  ****\n"


class DeadlyGame(FakeGameEnv):
    """The fake game where `jump` kills the player, who is reincarnated West of House 10
    points down, as Zork I does."""

    max_score = 100

    def _act(self, verb: str, noun: str) -> str:
        if verb != "jump":
            return super()._act(verb, noun)
        self._state = replace(self._state, score=self._state.score - 10, room="West of House")
        return DEATH


def play(folder: Path, llm: ScriptedLLM, *, max_turns: int, resume: bool = False, **agent):
    telemetry = JsonlTelemetry(folder, "e")
    try:
        return Orchestrator(profile=ZORK1,
            game=DeadlyGame(), agent=agent_for(llm, telemetry=telemetry, **agent),
            telemetry=telemetry, episode_id="e", max_turns=max_turns, resume=resume,
            checkpoints=FileCheckpoints(folder),
        ).run()  # fmt: skip
    finally:
        telemetry.close()


def shown(folder: Path) -> list[str]:
    return list(episode_lines(read_events(folder)))


def logged(folder: Path) -> list[str]:
    return (folder / "episode.log").read_text(encoding="utf-8").splitlines()


def after(lines: list[str], first: str, count: int) -> list[str]:
    at = lines.index(first)
    return lines[at : at + count]


def test_each_turn_reads_command_answer_then_state_and_a_death_is_called_out(tmp_path):
    tools = FakeToolServer("box", {"think": lambda thought: {"thought": thought * 200}})
    llm = ScriptedLLM([
        tool_calls_reply(("box.think", {"thought": "egg"})),
        action_reply("north", "a path\x1b[2J"),
        action_reply("east"), action_reply("take egg"), action_reply("jump"),
    ])  # fmt: skip
    play(tmp_path, llm, max_turns=4, tool_server=tools)
    lines = shown(tmp_path)
    assert lines[0] == "Episode e (MCP on, 4 turns max)"
    first = after(lines, "Turn 1", 9)
    assert first[:3] == ["Turn 1", "    thinking: a path\\x1b[2J",
                         '    tool box.think {"thought": "egg"}']  # fmt: skip
    result = first[3]
    assert result.startswith('      -> ok (615 chars): { "thought": "eggeggegg')
    assert result.endswith("...")
    assert len(result) < 340, "a result is cut to a few hundred characters"
    assert first[4:] == ["    > north", "    | North of House", "    | Exits: east, south.",
                         "    score 0, moves 1, now in North of House", "Turn 2"]  # fmt: skip
    assert after(lines, "    > take egg", 3) == [
        "    > take egg", "    | Taken.",
        "    score 10 (+10), moves 3, now in Behind House"]  # fmt: skip
    assert after(lines, "Turn 4", 7) == [
        "Turn 4", "    > jump", "    | You jump.", "    |",
        "    |     ****  You have died  ****", "    ** died **",
        "    score 0 (-10), moves 4, now in West of House",
    ]  # fmt: skip
    assert lines[-2:] == ["Ended (turn_limit): score 0 in 4 moves, 4 turns, 1 tool calls",
                          "    cost: unpriced (no price was reported)"]  # fmt: skip


def test_the_episode_log_holds_each_answer_death_score_change_and_tool_result(tmp_path):
    tools = FakeToolServer("box", {"think": lambda thought: f"noted: {thought}"})
    llm = ScriptedLLM([
        tool_calls_reply(("box.think", {"thought": "\x1b]0;pwned\x07"})), action_reply("east"),
        action_reply("north"), action_reply("east"), action_reply("take egg"),
        action_reply("jump", "\u202eevil"),
    ])  # fmt: skip
    play(tmp_path, llm, max_turns=4, tool_server=tools)
    log = logged(tmp_path)
    text = "\n".join(log)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    result = next(line for line in log if line.startswith("    -> "))
    assert result == "    -> ok (17 chars): noted: \\x1b]0;pwned\\x07"
    assert after(log, "[INFO] Turn 1: Agent action: east", 3) == [
        "[INFO] Turn 1: Agent action: east", "    | You can't go that way.",
        "    score 0, moves 1, now in West of House"]  # fmt: skip
    assert after(log, "[INFO] Turn 4: Agent action: take egg", 3) == [
        "[INFO] Turn 4: Agent action: take egg", "    | Taken.",
        "    score 10 (+10), moves 4, now in Behind House"]  # fmt: skip
    assert "    MCP on, 4 turns max, in West of House" in log
    assert "[INFO] Turn 4: Agent action: jump" not in log, "four turns only"


def test_a_death_in_the_log_says_the_points_it_cost(tmp_path):
    llm = ScriptedLLM([action_reply("north"), action_reply("jump", "\u202eevil")])
    play(tmp_path, llm, max_turns=2)
    assert after(logged(tmp_path), "[INFO] Turn 2: Agent action: jump", 7) == [
        "[INFO] Turn 2: Agent action: jump", "    thinking: \\u202eevil", "    | You jump.",
        "    |", "    |     ****  You have died  ****", "    ** died **",
        "    score -10 (-10), moves 2, now in West of House",
    ]  # fmt: skip


def test_a_resumed_episode_is_marked_where_it_went_on_and_the_end_that_stopped_it(tmp_path):
    broken = ScriptedLLM([action_reply("north"), action_reply("east"), LLMError("down")])
    with pytest.raises(LLMError):
        play(tmp_path, broken, max_turns=5)
    rest = ScriptedLLM([action_reply("take egg"), action_reply("jump"), action_reply("look")])
    play(tmp_path, rest, max_turns=5, resume=True)
    lines = shown(tmp_path)
    assert lines[0] == "Episode e (MCP off, 5 turns max)"
    assert after(lines, "Ended (llm_error): score 0 in 2 moves, 2 turns, 0 tool calls", 5) == [
        "Ended (llm_error): score 0 in 2 moves, 2 turns, 0 tool calls",
        "    error: LLMError: down", "    cost: unpriced (no price was reported)",
        "— resumed after turn 2 —", "Turn 3"]  # fmt: skip
    assert "    score 10 (+10), moves 3, now in Behind House" in lines
    assert lines[-2] == "Ended (turn_limit): score 0 in 5 moves, 5 turns, 0 tool calls"
    log = logged(tmp_path)
    assert after(log, "[ERROR] Episode: Episode ended (llm_error): score 0 in 2 moves", 6) == [
        "[ERROR] Episode: Episode ended (llm_error): score 0 in 2 moves",
        "    error: LLMError: down", "    cost: unpriced (no price was reported)",
        "[INFO] Episode: — resumed after turn 2 —",
        "[INFO] Episode: Episode e started",
        "    MCP off, 5 turns max, going on after turn 2, in Behind House"]  # fmt: skip
    assert "    score 10 (+10), moves 3, now in Behind House" in log  # the score before, read


def test_an_extended_episode_is_marked_with_its_new_turn_limit(tmp_path):
    play(tmp_path, ScriptedLLM([action_reply("north"), action_reply("east")]), max_turns=2)
    play(tmp_path, ScriptedLLM([action_reply("take egg")]), max_turns=3, resume=True)
    lines = shown(tmp_path)
    assert after(lines, "Ended (turn_limit): score 0 in 2 moves, 2 turns, 0 tool calls", 4) == [
        "Ended (turn_limit): score 0 in 2 moves, 2 turns, 0 tool calls",
        "    cost: unpriced (no price was reported)",
        "— resumed after turn 2, now to 3 turns —", "Turn 3"]  # fmt: skip
    view = episode_view(read_events(tmp_path))
    assert [turn.resumed is not None for turn in view.turns] == [False, False, True]
    assert (view.first_start.max_turns, view.start.max_turns) == (2, 3)


def write(folder: Path, *events: Event) -> None:
    telemetry = JsonlTelemetry(folder, "e")
    for event in events:
        telemetry.emit(event)
    telemetry.close()


def turn(number: int, score: int) -> Event:
    facts = TurnFacts(number, score, number, 0, room="Kitchen")
    return Event.of(TurnCompleted(facts, "wait", "", "Time passes.", 1), "Agent action: wait")


def test_a_turn_logged_again_after_a_resume_changes_the_score_from_where_it_went_on(tmp_path):
    """A run killed between a turn's event and its checkpoint plays that turn again."""
    write(tmp_path, Event.of(EpisodeStarted(False, 5), "started"), turn(1, 5), turn(2, 10))
    write(tmp_path, Event(EventType.EPISODE_RESUMED, "Resumed after turn 1", fields={"turn": 1}),
          Event.of(EpisodeStarted(False, 5, turn=1), "started"), turn(2, 5))  # fmt: skip
    lines = shown(tmp_path)
    assert lines[-5:] == ["— resumed after turn 1 —", "Turn 2", "    > wait",
                          "    | Time passes.", "    score 5, moves 2, now in Kitchen"]  # fmt: skip
    assert logged(tmp_path)[-1] == "    score 5, moves 2, now in Kitchen"


def test_show_prints_inert_lines_and_no_rich_markup_or_emoji(tmp_path, capsys):
    write(tmp_path, Event.of(EpisodeStarted(False, 5), "started"), turn(1, 0))
    facts = TurnFacts(2, 0, 2, 0, room="[bold]Hall[/]")
    answer = "A :smile: \x1b[31mred\x1b[0m sign."
    write(tmp_path, Event.of(TurnCompleted(facts, "read sign", "", answer, 1), "read"))
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "    | A :smile: \\x1b[31mred\\x1b[0m sign." in out.splitlines()
    assert "now in [bold]Hall[/]" in out and "\x1b" not in out


def test_show_refuses_an_events_file_that_is_a_link_and_prints_nothing_it_points_to(
    tmp_path, capsys
):
    secret = tmp_path / "secret"
    secret.write_text('{"event_type": "episode_start", "message": "a secret of the user"}\n')
    episode = tmp_path / "e"
    episode.mkdir()
    (episode / "events.jsonl").symlink_to(secret)
    assert main([str(episode)]) == 2
    said = capsys.readouterr()
    assert "is a symbolic link" in said.err and "secret of the user" not in said.out + said.err


def test_show_takes_an_episodes_id_in_the_log_folder_as_well_as_its_path(
    tmp_path, capsys, monkeypatch
):
    """`zork-mcp show e` finds logs/e (the run's default log folder), `--log-dir` another."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "logs" / "e", Event.of(EpisodeStarted(False, 5), "started"), turn(1, 0))
    write(tmp_path / "eval" / "logs" / "s-1", Event.of(EpisodeStarted(True, 3), "started"))
    assert main(["e"]) == 0
    by_id = capsys.readouterr().out
    assert by_id.startswith("Episode e (MCP off, 5 turns max)\nTurn 1\n")
    assert main([str(tmp_path / "logs" / "e")]) == 0 and capsys.readouterr().out == by_id
    assert main(["s-1", "--log-dir", "eval/logs"]) == 0
    assert capsys.readouterr().out.startswith("Episode e (MCP on, 3 turns max)")


def test_show_of_an_episode_that_is_nowhere_names_where_it_looked(tmp_path, capsys):
    logs = tmp_path / "logs"
    assert main(["nonesuch", "--log-dir", str(logs)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert f"No episode nonesuch: neither nonesuch nor {logs / 'nonesuch'} is a folder" in said
    assert f"Pass an episode's id (its folder's name under --log-dir, here {logs})" in said
