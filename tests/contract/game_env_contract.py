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

    def test_each_room_is_its_location_object_that_a_move_changes_and_a_restore_brings_back(
        self, env
    ):
        start = env.reset()
        north = env.step("north")
        assert start.location and north.location and north.location != start.location
        snapshot = env.save_state()
        env.step("west")
        assert env.restore_state(snapshot).location == north.location
        assert env.peek("look").location == north.location
        assert env.step("xyzzy plugh").location == north.location  # a command not read

    def test_restore_returns_to_the_saved_moment(self, env):
        env.reset()
        env.step("north")
        snapshot = env.save_state()
        away = env.step("south")
        env.restore_state(snapshot)
        again = env.step("south")
        assert (again.text, again.room, again.moves) == (away.text, away.room, away.moves)

    def test_a_snapshot_is_bytes_and_bytes_that_are_not_one_are_refused(self, env):
        """A checkpoint keeps the snapshot as bytes, and reads them from a file: whatever
        else it holds is a TypeError, and the game is left where it was."""
        env.reset()
        north = env.step("north")
        snapshot = env.save_state()
        assert isinstance(snapshot, bytes)
        for garbage in (b"", b"\x00" * 64, snapshot[: len(snapshot) // 2], b'{"room": 1}'):
            with pytest.raises(TypeError, match="snapshot"):
                env.restore_state(garbage)
        assert env.peek("look").room == north.room

    def test_a_peek_answers_as_the_step_would_and_leaves_the_game_as_it_was(self, env):
        env.reset()
        before = env.step("north")
        peeked = env.peek("south")
        moved = env.step("south")
        assert peeked.text == moved.text and moved.moves == before.moves + 1
        assert (peeked.room, peeked.moves) == (before.room, before.moves)

    def test_a_peek_judges_its_command_like_a_step(self, env):
        env.reset()
        assert env.peek("n. quit").text.startswith("[The command")

    def test_nonsense_and_empty_commands_do_not_crash(self, env):
        env.reset()
        assert env.step("xyzzy plugh").text
        assert env.step("").text is not None

    @pytest.mark.parametrize("command", ["save", "restore", "script", "quit", "restart", "n. q"])
    def test_meta_commands_are_refused_and_leave_the_game_as_it_was(self, env, command):
        env.reset()
        before = env.step("north")
        refused = env.step(command)
        after = env.step("south")
        assert refused.text.startswith("[The command") and "not available" in refused.text
        assert (refused.room, refused.moves, refused.score) == (
            before.room,
            before.moves,
            before.score,
        )
        assert after.moves == before.moves + 1

    def test_an_unsafe_command_is_cleaned_and_the_agent_told(self, env):
        env.reset()
        observation = env.step("north\x00\u4e2d\nquit")
        assert observation.text.startswith("[Only the first line")
        assert "printable ASCII" in observation.text and observation.moves >= 1
