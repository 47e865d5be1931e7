"""The text-adventure server's game logic (spec 003), through the fake game."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.domain.game.game import GameObservation
from zork_mcp.servers.text_adventure import HISTORY_LIMIT, GameSession, movement


def session() -> GameSession:
    return GameSession(FakeGameEnv(), "fake")


def test_actions_report_text_score_and_moves():
    game = session()
    report = game.take_action("north")
    assert report.startswith("North of House") and report.endswith("[Score: 0 | Moves: 1]")


def test_points_and_game_over_are_announced():
    game = session()
    game.take_action("north")
    game.take_action("east")
    report = game.take_action("take egg")
    assert "+10 points! (Total: 10)" in report and report.endswith("GAME OVER")


class DeadlyGame(FakeGameEnv):
    """The fake game where `jump` kills the player, 10 points down, as Zork I's deaths do;
    over at that death, as Jericho's `done` (GAME_END_AT_FIRST_DEATH=1) has it."""

    def step(self, action: str) -> GameObservation:
        if action != "jump":
            return super().step(action)
        alive = super().step("look")
        death = "You jump.\n\n    ****  You have died  ****"
        return GameObservation(death, alive.room, alive.score - 10, alive.moves, game_over=True)


def test_a_death_announces_the_points_it_cost_and_ends_the_game():
    game = GameSession(DeadlyGame(), "fake")
    game.take_action("north")
    report = game.take_action("jump")
    assert "-10 points! (Total: -10)" in report and report.endswith("GAME OVER")


@pytest.mark.parametrize("command", ["north", "look", "jump", ""])
def test_after_game_over_play_action_refuses_and_says_how_to_start_again(command):
    game = session()
    for won in ("north", "east", "take egg"):
        game.take_action(won)
    moves = game.current.moves
    with pytest.raises(ToolError, match=r"GAME OVER.*restart the server") as refused:
        game.take_action(command)
    assert "memory and get_map" in str(refused.value)
    assert (game.current.moves, len(game.history)) == (moves, 3), "nothing was played"
    assert "- Moves: 3" in game.memory() and "[Current] Behind House" in game.get_map()


def test_the_map_records_moves_that_changed_room():
    game = session()
    for command in ("n", "go east", "west", "up", "look"):
        game.take_action(command)
    assert game.explored == {
        "West of House": {"north -> North of House"},
        "North of House": {"east -> Behind House"},
        "Behind House": {"west -> North of House"},
    }
    rendered = game.get_map()
    assert "* West of House\n    -> north -> North of House" in rendered
    assert rendered.endswith("[Current] North of House")


def test_history_is_capped():
    game = session()
    for _ in range(HISTORY_LIMIT + 7):
        game.take_action("look")
    assert len(game.history) == HISTORY_LIMIT


def test_memory_summarises_state_and_recent_actions():
    game = session()
    for command in ("look", "north", "take leaflet", "south", "take leaflet", "inventory"):
        game.take_action(command)
    memory = game.memory()
    assert "- Location: West of House" in memory and "- Moves: 6" in memory
    assert memory.count("  > ") == 5 and "> inventory -> leaflet" in memory


def test_inventory_spends_no_move():
    game = session()
    game.take_action("take leaflet")
    assert game.inventory() == "Inventory: leaflet"
    assert game.take_action("look").endswith("Moves: 2]")


@pytest.mark.parametrize("bad", ["", "   ", "\n\t"])
def test_empty_actions_are_tool_errors(bad):
    with pytest.raises(ToolError):
        session().take_action(bad)


@pytest.mark.parametrize(
    ("action", "notice"),
    [("north\nsouth", "[Only the first line"), ("north " + "x" * 250, "[Your command was cut")],
)
def test_unsafe_actions_are_played_as_the_agent_would_and_said(action, notice):
    report = session().take_action(action)
    assert report.startswith(notice) and "North of House" in report


def test_meta_commands_are_refused_without_a_move():
    game = session()
    assert "not available" in game.take_action("save")
    assert game.take_action("look").endswith("Moves: 1]")


@pytest.mark.parametrize(
    ("command", "direction"),
    [("n", "north"), ("GO  West", "west"), ("enter", "enter"), ("take lamp", None), ("go", None)],
)
def test_movement_commands_are_recognised(command, direction):
    assert movement(command) == direction


def test_memory_cuts_each_recent_result_to_60_characters():
    game = session()
    word = "frobnicate" * 6
    game.take_action(word)
    squashed = " ".join(game.current.text.split())
    assert len(squashed) > 60, "the answer is long enough for the cut to matter"
    assert f"  > {word} -> {squashed[:60]}" in game.memory().splitlines()


class SilentInventoryGame(FakeGameEnv):
    """The fake game, answering `inventory` with no text at all."""

    def _act(self, verb: str, noun: str) -> str:
        return "" if verb in ("inventory", "i") else super()._act(verb, noun)


def test_an_inventory_without_text_reads_as_empty_handed():
    assert GameSession(SilentInventoryGame(), "fake").inventory() == "You are empty-handed."
