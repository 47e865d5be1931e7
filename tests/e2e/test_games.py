"""Games beyond Zork I, through the real CLI (a local HTTP server playing the LLM, real
Jericho in its game process): Zork II and III from the package, each to its maximum along
its walkthrough, and a story file no profile knows (Lantern Hill, compiled from the tests'
own source), whose prompts, map and score carry no Zork word or number."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.lantern import MAX_POINTS
from tests.support.lantern import WALKTHROUGH as LANTERN_WALK
from tests.support.llm_peers import ProviderPeer, peer_for
from tests.support.projects import write_project
from tests.support.walkthrough import walkthrough
from zork_mcp.adapters.game.jericho import packaged_story
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main
from zork_mcp.domain.game.trilogy import KNOWN_GAMES

pytestmark = pytest.mark.slow

ZORK_WORDS = re.compile(r"zork|350|\b400\b|grue|mailbox|frobozz|\bI{1,3}\b", re.IGNORECASE)


def play(peer: ProviderPeer, tmp_path: Path, game: str, *extra: str) -> tuple[int, list[dict]]:
    config = write_project(tmp_path, {}, enabled=False)
    with peer.serve() as url:
        code = main([
            "--provider", "local", "--base-url", f"{url}/v1", "--model", "walkthrough",
            "--game", game, "--plain", "--config", str(config), "--log-dir", str(tmp_path),
            "--episode-id", "game", *extra,
        ])  # fmt: skip
    events_file = tmp_path / "game" / "events.jsonl"
    return code, [json.loads(line) for line in events_file.open()]


# Each walkthrough's turns, its final score and moves (seed 12, the CLI's default).
TRILOGY_ENDS = {"zork2": (280, 400, 301), "zork3": (771, 7, 773)}


@pytest.mark.parametrize("key", list(TRILOGY_ENDS))
def test_each_later_zork_is_won_to_its_maximum_from_the_package(key, tmp_path):
    commands = walkthrough(key)
    turns, score, moves = TRILOGY_ENDS[key]
    peer = peer_for("openai", [action_reply(c) for c in commands], [], api_key=None)
    code, events = play(peer, tmp_path, key, "--max-turns", str(len(commands) + 5))
    played = [event["action"] for event in events if event["event_type"] == "turn_complete"]
    [end] = [event for event in events if event["event_type"] == "episode_end"]
    assert code == 0 and peer.rejections == [] and played == commands and len(played) == turns
    assert (end["score"], end["moves"], end["end_reason"]) == (score, moves, "game_over")
    assert score == KNOWN_GAMES[key].max_score
    system = peer.requests[0]["messages"][0]["content"]
    assert f"playing {KNOWN_GAMES[key].name}," in system
    journal = (tmp_path / "game" / "journal.jsonl").read_text()
    assert json.loads(journal.splitlines()[0])["game"] == key


def test_a_story_file_no_profile_knows_plays_with_no_zork_word_anywhere(
    lantern_game, tmp_path, capsys
):
    commands = ["look", "south", *LANTERN_WALK]
    peer = peer_for("openai", [action_reply(c) for c in commands], [], api_key=None)
    code, events = play(
        peer, tmp_path, str(lantern_game), "--max-turns", "10", "--max-score", str(MAX_POINTS)
    )
    printed = capsys.readouterr()
    [end] = [event for event in events if event["event_type"] == "episode_end"]
    assert code == 0 and peer.rejections == []
    assert (end["score"], end["end_reason"]) == (MAX_POINTS, "game_over")
    requests = json.dumps(peer.requests)
    assert "Lantern Hill".upper() in requests and "playing lantern" in requests
    assert not ZORK_WORDS.search(requests.replace("zork-mcp", "")), ZORK_WORDS.findall(requests)
    journal = (tmp_path / "game" / "journal.jsonl").read_text()
    assert json.loads(journal.splitlines()[0])["game"] == "lantern"
    said = " ".join(printed.err.split())
    assert "Playing lantern, a game zork-mcp has no profile for" in said
    assert "when the player dies" in said and "maximum score" not in said


def test_zork_iii_ends_the_episode_when_it_quits_by_itself_after_a_fourth_death(tmp_path):
    """Seed 5 loses the walkthrough's fights: its fourth death, at command 218, is Zork III's
    QUIT, which Jericho does not carry out; the episode ends there, not in a dead game."""
    commands = walkthrough("zork3")
    peer = peer_for("openai", [action_reply(c) for c in commands], [], api_key=None)
    code, events = play(peer, tmp_path, "zork3", "--seed", "5", "--max-turns", "400")
    turns = [event for event in events if event["event_type"] == "turn_complete"]
    [end] = [event for event in events if event["event_type"] == "episode_end"]
    assert code == 0 and len(turns) == 218 and end["end_reason"] == "game_over"
    assert sum(turn["died"] for turn in turns) == 4


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda path: path.write_text("# not a game\n" * 40), "is not a Z-machine story file"),
        (lambda path: path.write_bytes(packaged_story("zork1").read_bytes()[:40_000]),
         "is truncated"),
        (lambda path: path.write_bytes(b"\x06" + packaged_story("zork1").read_bytes()[1:]),
         "is a version 6 story file"),
    ],
    ids=["text", "truncated", "version-6"],
)  # fmt: skip
def test_a_file_that_is_no_playable_story_is_refused_before_anything_is_written(
    tmp_path, capsys, make, said
):
    story = tmp_path / "game.z3"
    make(story)
    peer = peer_for("openai", [action_reply("look")], [], api_key=None)
    logs = tmp_path / "logs"
    with peer.serve() as url:
        code = main([
            "--provider", "local", "--base-url", f"{url}/v1", "--model", "m", "--game",
            str(story), "--max-turns", "1", "--log-dir", str(logs), "--plain",
        ])  # fmt: skip
    assert code == 2 and peer.requests == []
    assert said in " ".join(capsys.readouterr().err.split())
    assert not logs.exists(), "a refused run wrote nothing"
