"""The Checkpoints contract: the latest checkpoint saved is the one loaded, whole and apart
from what the orchestrator goes on changing; none saved is an actionable error."""

from __future__ import annotations

import pytest

from zork_mcp.domain.episode.episode import EpisodeSummary
from zork_mcp.domain.episode.episode_state import Checkpoint, EpisodeState, Note, Place, PlayedTurn
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.messages import Usage
from zork_mcp.domain.servers.connection import ConnectResult, ServerConnections
from zork_mcp.ports.checkpoints import Checkpoints


def checkpoint(turn: int) -> Checkpoint:
    summary = EpisodeSummary("e", turns=turn, score=5 * turn, moves=turn, room="Kitchen",
                             tool_calls=turn, usage=Usage(10 * turn, turn))  # fmt: skip
    state = bytes(range(turn, turn + 8)) + b"\x00\xff rng"  # a game's snapshot is bytes
    turns = [PlayedTurn(n, "north", f"You go north ({n}).", Place("Kitchen", 27), 5 * n, 5)
             for n in range(1, turn + 1)]  # fmt: skip
    connections = ServerConnections()
    connections["memory"].record(ConnectResult.SUCCEEDED)
    episode = EpisodeState(summary, Place("West of House", 64), "Welcome", turns,
                           f"objective {turn}", (Note(1, "the door is locked"),),
                           connections)  # fmt: skip
    return Checkpoint(state, episode)


class CheckpointsContract:
    @pytest.fixture
    def checkpoints(self) -> Checkpoints:
        raise NotImplementedError

    def test_nothing_saved_is_nothing_to_resume(self, checkpoints):
        assert not checkpoints.exists()
        with pytest.raises(ConfigurationError, match="Nothing to resume"):
            checkpoints.load()

    def test_the_latest_checkpoint_saved_is_the_one_loaded(self, checkpoints):
        for turn in (1, 2, 3):
            checkpoints.save(checkpoint(turn))
        assert checkpoints.exists()
        assert checkpoints.load() == checkpoint(3)

    def test_a_saved_checkpoint_is_apart_from_the_totals_that_go_on(self, checkpoints):
        saved = checkpoint(1)
        checkpoints.save(saved)
        saved.summary.turns = 99  # the orchestrator's summary is mutable
        assert checkpoints.load() == checkpoint(1)

    def test_the_episode_state_comes_back_whole(self, checkpoints):
        saved = checkpoint(3)
        checkpoints.save(saved)
        episode = checkpoints.load().episode
        assert episode.turns == saved.episode.turns and episode.notes == saved.episode.notes
        assert (episode.start, episode.opening, episode.objective) == (
            Place("West of House", 64), "Welcome", "objective 3")  # fmt: skip
        assert episode.connections.states() == saved.episode.connections.states()
        assert checkpoints.load().turn == 3

    def test_a_saved_state_is_apart_from_the_turns_that_go_on(self, checkpoints):
        saved = checkpoint(2)
        checkpoints.save(saved)
        saved.episode.turns.append(PlayedTurn(3, "up", "Attic", Place("Attic", 187)))
        saved.episode.connections["memory"].record(ConnectResult.FAILED)
        assert checkpoints.load() == checkpoint(2)
