"""The Checkpoints contract: the latest checkpoint saved is the one loaded, whole and apart
from what the orchestrator goes on changing; none saved is an actionable error."""

from __future__ import annotations

from collections import deque

import pytest

from zork_mcp.domain.episode import Checkpoint, EpisodeSummary
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.messages import Usage
from zork_mcp.ports.checkpoints import Checkpoints


def checkpoint(turn: int) -> Checkpoint:
    summary = EpisodeSummary("e", turns=turn, score=5 * turn, moves=turn, room="Kitchen",
                             tool_calls=turn, usage=Usage(10 * turn, turn))  # fmt: skip
    state = {"ram": bytes(range(turn, turn + 8)), "rng": [turn, 2, 3]}
    return Checkpoint(turn, state, f"objective {turn}", (("north", "You go north."),), summary)


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
        saved.game_state["rng"].append(4)  # type: ignore[index]
        assert checkpoints.load() == checkpoint(1)

    def test_recent_actions_come_back_as_saved(self, checkpoints):
        recent = deque([("open mailbox", "Opening..."), ("read leaflet", "WELCOME")], maxlen=5)
        checkpoints.save(Checkpoint(2, None, None, tuple(recent), EpisodeSummary("e")))
        assert checkpoints.load().recent == tuple(recent)
