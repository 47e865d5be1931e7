"""Each turn's facts, read from what the real game says (issue 36): a command the game did
not read, a death, a room change; through the game port and through a scripted episode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.llm_peers import peer_for
from tests.support.projects import write_project
from tests.support.walkthrough import TO_THE_GRUE
from zork_mcp.adapters.game.jericho import JerichoGameEnv, packaged_story
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main
from zork_mcp.domain.episode.episode_map import refused
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.game.game_text import died, unread
from zork_mcp.domain.game.trilogy import KNOWN_GAMES, ZORK1
from zork_mcp.domain.sweep.records import play_metrics

pytestmark = pytest.mark.slow
# At West of House, a command that draws each refusal of ZORK1.unread from the game.
UNREAD_BY = {
    "blorb": "I don't know the word",
    "take north": "You used the word",
    "mailbox": "There was no verb in that sentence!",
    "open mailbox with": "That sentence isn't one I recognize.",
    "open mailbox and": "There seems to be a noun missing in that sentence!",
    "put leaflet in mailbox with sword": "There were too many nouns in that sentence.",
    "open all": "You can't use multiple",
    "take sword": "You can't see any",
    "tie lamp to sword": "Those things aren't here!",
    "take leaves and sword": "The objects that you mentioned aren't here.",
}
READ = ["open mailbox", "north", "xyzzy", "take", "hello", "walk", "drop all", "jump", "w"]


@pytest.fixture(scope="module")
def env(zork_game):
    env = JerichoGameEnv(zork_game, seed=12)
    yield env
    env.close()


def test_every_refusal_is_drawn_from_the_game_by_one_command():
    assert sorted(UNREAD_BY.values()) == sorted(set(ZORK1.unread) - {"I beg your pardon?"})


@pytest.mark.parametrize(("command", "refusal"), UNREAD_BY.items())
def test_a_command_the_game_does_not_read_is_invalid(env, command, refusal):
    env.reset()
    observation = env.step(command)
    assert observation.text.startswith(refusal) and unread(observation.text, ZORK1)
    assert not observation.refused


@pytest.mark.parametrize("command", READ)
def test_a_command_the_game_reads_is_valid_whatever_it_answers(env, command):
    env.reset()
    assert not unread(env.step(command).text, ZORK1)


def test_a_command_we_refuse_never_reaches_the_game_and_is_marked(env):
    env.reset()
    observation = env.step("quit")
    assert observation.refused and observation.moves == 0


def test_the_death_is_read_from_the_game_and_nothing_else_is(env):
    env.reset()
    texts = [env.step(command).text for command in TO_THE_GRUE]
    assert [died(text, ZORK1) for text in texts] == [False] * (len(TO_THE_GRUE) - 1) + [True]


def test_a_scripted_episode_stores_its_rooms_refusals_and_death(tmp_path: Path, zork_game):
    commands = ["blorb", "quit", *TO_THE_GRUE]
    pyproject = write_project(tmp_path, enabled=False)
    peer = peer_for("openai", [action_reply(c) for c in commands], [], api_key=None)
    with peer.serve() as url:
        code = main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "m",
             "--game", str(zork_game), "--max-turns", str(len(commands)), "--plain",
             "--config", str(pyproject), "--log-dir", str(tmp_path), "--episode-id", "e"]
        )  # fmt: skip
    lines = (tmp_path / "e" / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    turns = [TurnFacts.from_fields(e) for e in events if e["event_type"] == "turn_complete"]
    assert code == 0 and len(turns) == len(commands)
    assert [turn.room for turn in turns[:3]] == ["West of House"] * 2 + ["North of House"]
    assert [turn.valid for turn in turns[:3]] == [False, False, True]
    assert [turn.died for turn in turns] == [False] * (len(commands) - 1) + [True]
    assert all(turn.prompt_tokens > 0 and turn.llm_seconds > 0 for turn in turns)
    metrics = play_metrics(turns)
    assert (metrics.deaths, metrics.invalid_commands, metrics.best_score) == (1, 2, 40)
    assert metrics.rooms_visited == len({turn.room for turn in turns}) >= 6


# Zork II's and III's words, each drawn from the real game at its opening (seed 12).
LATER_ZORKS = {
    "zork2": {
        "unread": ["blorb", "take unicorn", "the", "oops", "g"],
        "read": ["take lamp", "s", "jump", "wait"],
        "refused_exit": "out",  # Inside the Barrow: its door shut behind you
    },
    "zork3": {
        "unread": ["blorb", "take unicorn", "the", "oops", "g"],
        "read": ["take lamp", "jump", "wait", "n"],
        "refused_exit": "n",  # the Endless Stair: "The stairs are endless."
    },
}


@pytest.mark.parametrize("key", list(LATER_ZORKS))
def test_each_later_zorks_words_are_read_from_its_game(key):
    game, words = KNOWN_GAMES[key], LATER_ZORKS[key]
    env = JerichoGameEnv(packaged_story(key), seed=12)
    try:
        for command in words["unread"]:
            env.reset()
            assert unread(env.step(command).text, game), command
        for command in words["read"]:
            env.reset()
            assert not unread(env.step(command).text, game), command
        env.reset()
        answer = env.step(words["refused_exit"]).text
        assert refused(answer, game), answer
    finally:
        env.close()
