"""The agent as an Inspect AI task (`inspect eval zork_mcp/zork`): Inspect's mock model
plays through our orchestrator, our reasoning MCP server and real Jericho, and the `.eval`
log, read back with Inspect's own reader, holds the turns, the tool calls and the score."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.event import InfoEvent
from inspect_ai.log import read_eval_log
from inspect_ai.model import get_model

from tests.support.inspect_scripts import (
    command_script,
    inspect_project,
    stalling_script,
    usage,
)
from tests.support.walkthrough import TOOL, WALKTHROUGH
from zork_mcp.domain.episode.episode import EndReason

pytestmark = pytest.mark.slow  # real Jericho, and our reasoning server


def run(
    tmp_path, zork_game, commands, *, mcp=True, think_every=1, script=None, zorkgpt=None, **limits
):
    pyproject, mcp_config = inspect_project(tmp_path, **(zorkgpt or {}))
    script = script or command_script(commands, think_every=think_every)
    model = get_model("mockllm/model", custom_outputs=script)
    [log] = inspect_eval(
        "zork_mcp/zork",
        model=model,
        task_args={
            "max_turns": len(commands),
            "mcp_config": str(mcp_config) if mcp else "off",
            "game": str(zork_game),
            "config": str(pyproject),
        },
        log_dir=str(tmp_path / "logs"),
        display="none",
        **limits,
    )
    return read_eval_log(log.location)


def turns_of(sample):
    return [
        e.data
        for e in sample.events
        if isinstance(e, InfoEvent) and e.source.startswith("zork turn")
    ]


def test_an_inspect_eval_plays_our_loop_with_mcp_tools_and_scores_the_game(tmp_path, zork_game):
    commands = WALKTHROUGH[:6]  # N, N, U, Get egg (5 points), D, S
    log = run(tmp_path, zork_game, commands)
    assert log.status == "success"
    [sample] = log.samples
    score = sample.scores["game_score"]
    assert score.value == {"final": 5, "best": 5, "normalised": 5 / 350}
    assert score.answer == "turn_limit"
    turns = turns_of(sample)
    assert [turn["command"] for turn in turns] == commands
    assert all(turn["tool_calls"][0]["tool"] == TOOL for turn in turns)
    assert all(turn["tool_calls"][0]["error"] is None for turn in turns)
    assert (turns[3]["game"], turns[3]["score"]) == ("Taken.", 5)
    offered = [call.tools[0].name for call in sample.events if call.event == "model" and call.tools]
    assert offered and set(offered) == {"reasoning__sequentialthinking"}
    means = {score.name: score.metrics["mean"].value for score in log.results.scores}
    assert means == {"final": 5, "best": 5, "normalised": 5 / 350}


def test_a_token_limit_stops_the_episode_cleanly_and_it_is_scored_as_played(tmp_path, zork_game):
    # 15 tokens a call, no tools: the fifth call passes 65 and is refused its turn.
    log = run(tmp_path, zork_game, WALKTHROUGH[:10], mcp=False, token_limit=65)
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "token"
    assert sample.error is None
    assert [turn["command"] for turn in turns_of(sample)] == WALKTHROUGH[:4]
    score = sample.scores["game_score"]
    assert score.value["final"] == 5 and score.answer == "token_limit"


def test_a_time_limit_stops_the_turn_in_flight_and_the_episode_is_scored_as_played(
    tmp_path, zork_game
):
    commands = WALKTHROUGH[:4]
    script = stalling_script(commands)
    log = run(tmp_path, zork_game, [*commands, "D"], mcp=False, script=script, time_limit=5)
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "time"
    assert [turn["command"] for turn in turns_of(sample)] == commands
    score = sample.scores["game_score"]
    # Inspect cancels the solver (its limit is raised after): the episode stops as on Ctrl-C
    assert score.value["final"] == 5 and score.answer == "interrupted"
    assert score.metadata["turns"] == 4


def test_a_budget_in_the_pyproject_stops_the_episode_as_it_does_on_the_cli(tmp_path, zork_game):
    """Issue 68: an eval whose pyproject says `budget_tokens = 2000`, each call billing
    1,100 tokens, played all 40 of its turns: Inspect's model was never wrapped in the
    budget. Under it, a call starts only while what is left covers its estimate, so the
    calls played before the last spent less than the budget, and the episode ends as the
    CLI's does, by its budget."""
    commands = WALKTHROUGH[:40]
    script = command_script(commands, tokens=(1_000, 100))
    log = run(tmp_path, zork_game, commands, mcp=False, script=script,
              zorkgpt={"budget_tokens": 2_000})  # fmt: skip
    [sample] = log.samples
    assert sample.error is None and sample.limit is None
    score = sample.scores["game_score"]
    played = [turn["command"] for turn in turns_of(sample)]
    assert score.answer == EndReason.BUDGET.value and score.metadata["turns"] == len(played)
    assert 0 < len(played) < len(commands) and played == commands[: len(played)]
    assert 1_100 * (len(played) - 1) < 2_000, "no call starts once the budget is spent"
    spent = sum(usage.total_tokens for usage in sample.model_usage.values())
    assert spent == 1_100 * len(played), "every call the episode made was counted"


def test_the_walkthrough_played_as_an_inspect_task_wins(tmp_path, zork_game):
    log = run(tmp_path, zork_game, WALKTHROUGH, think_every=50)
    [sample] = log.samples
    assert sample.scores["game_score"].value == {"final": 350, "best": 350, "normalised": 1.0}
    assert sample.scores["game_score"].answer == "game_over"
    turns = turns_of(sample)
    assert len(turns) == len(WALKTHROUGH)
    assert sum(len(turn["tool_calls"]) for turn in turns) == len(range(0, len(WALKTHROUGH), 50))


ZORK2_OPENING = ["take sword", "take lamp", "s", "s"]


def by_game_script(commands: dict[str, list[str]]):
    """The mock model's `custom_outputs` for a task over several games, no tools: each call
    plays the next command of the game its system prompt names (`playing Zork II`)."""
    from inspect_ai.model import ModelOutput

    left = {name: iter(played) for name, played in commands.items()}

    def respond(input, tools, tool_choice, config):
        system = str(input[0].content)
        name = max((n for n in left if f"playing {n}," in system), key=len)
        body = {"thinking": "scripted", "action": next(left[name]), "new_objective": None}
        output = ModelOutput.from_content("mockllm/model", json.dumps(body))
        output.usage = usage()
        return output

    return respond


def test_a_task_over_two_games_plays_a_sample_per_game_and_scores_each_over_its_maximum(
    tmp_path,
):
    pyproject, _ = inspect_project(tmp_path)
    script = by_game_script({"Zork I": WALKTHROUGH[:4], "Zork II": ZORK2_OPENING})
    [log] = inspect_eval(
        "zork_mcp/zork",
        model=get_model("mockllm/model", custom_outputs=script),
        task_args={"max_turns": 4, "mcp_config": "off", "games": "zork1,zork2",
                   "seeds": [12], "config": str(pyproject)},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )  # fmt: skip
    log = read_eval_log(log.location)
    assert log.status == "success" and log.eval.dataset.name == "zork1+zork2"
    samples = {sample.id: sample for sample in log.samples}
    assert set(samples) == {"zork1-seed-12", "zork2-seed-12"}
    zork1, zork2 = samples["zork1-seed-12"], samples["zork2-seed-12"]
    assert [turn["command"] for turn in turns_of(zork1)] == WALKTHROUGH[:4]
    assert [turn["command"] for turn in turns_of(zork2)] == ZORK2_OPENING
    assert turns_of(zork2)[0]["room"] == "Inside the Barrow"
    assert zork1.scores["game_score"].value == {"final": 5, "best": 5, "normalised": 5 / 350}
    assert zork2.scores["game_score"].value == {"final": 0, "best": 0, "normalised": 0.0}
    assert "of 400 in zork2" in zork2.scores["game_score"].explanation
    assert zork2.input.startswith("Play Zork II from the start")
    metrics = {score.name: score.metrics for score in log.results.scores}
    assert metrics["normalised"]["mean"].value == 5 / 350 / 2  # pooled: both games' samples
    assert metrics["normalised"]["grouped_zork1"].value == 5 / 350
    assert metrics["normalised"]["grouped_zork2"].value == 0.0
    assert (
        metrics["final"]["grouped_zork1"].value == 5
        and metrics["final"]["grouped_zork2"].value == 0
    )


def test_a_game_and_games_together_are_refused_with_what_to_write():
    from zork_mcp.domain.errors import ConfigurationError
    from zork_mcp.inspect.task import games_written

    with pytest.raises(ConfigurationError, match="not both"):
        games_written("zork1", "zork2")
    assert games_written(None, "zork1, zork2,zork1") == ["zork1", "zork2"]
    assert games_written(None, ["zork3"]) == ["zork3"]
    assert games_written("zork2", None) == ["zork2"] and games_written(None, None) == [None]
