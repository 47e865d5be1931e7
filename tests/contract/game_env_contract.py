"""The GameEnv contract: reset, step, moves, save and restore."""

from __future__ import annotations

import pytest

from zork_mcp.ports.game_env import GameEnv


class GameEnvContract:
    first_room: str = "West of House"

    @pytest.fixture
    def env(self) -> GameEnv:
        raise NotImplementedError

    def test_reset_starts_in_the_first_room(self, env):
        observation = env.reset()
        assert observation.room == self.first_room and observation.text
        assert observation.score == 0 and not observation.game_over

    def test_steps_count_moves_and_text_is_returned(self, env):
        env.reset()
        first = env.step("look")
        second = env.step("north")
        assert second.moves == first.moves + 1 and second.text

    def test_restore_returns_to_the_saved_moment(self, env):
        env.reset()
        env.step("north")
        snapshot = env.save_state()
        away = env.step("south")
        env.restore_state(snapshot)
        again = env.step("south")
        assert (again.text, again.room, again.moves) == (away.text, away.room, away.moves)

    def test_nonsense_and_empty_commands_do_not_crash(self, env):
        env.reset()
        assert env.step("xyzzy plugh").text
        assert env.step("").text is not None
