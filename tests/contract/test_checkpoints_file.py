import shutil

import pytest

from tests.contract.checkpoints_contract import CheckpointsContract
from tests.support.paths import CHECKPOINT_BEFORE_ISSUE_28, CHECKPOINT_BEFORE_ISSUE_48
from zork_mcp.adapters.storage.checkpoint_file import CHECKPOINT_FILE, FileCheckpoints
from zork_mcp.domain.episode.episode import Checkpoint, EpisodeSummary
from zork_mcp.domain.errors import ConfigurationError

BEFORE_ISSUE_28 = CHECKPOINT_BEFORE_ISSUE_28


class TestCheckpointFile(CheckpointsContract):
    @pytest.fixture
    def checkpoints(self, tmp_path):
        return FileCheckpoints(tmp_path / "episode")

    def test_a_checkpoint_written_before_its_classes_moved_still_loads(self, tmp_path):
        """Written by 2dcaa72 from a real game (zork_mcp.app.checkpoint.Checkpoint)."""
        shutil.copy(BEFORE_ISSUE_28, tmp_path / CHECKPOINT_FILE)
        saved = FileCheckpoints(tmp_path).load()
        assert isinstance(saved, Checkpoint) and isinstance(saved.summary, EpisodeSummary)
        assert (saved.turn, saved.episode.objective, saved.summary.room) == (
            2, "read the leaflet", "West of House")  # fmt: skip
        turns = saved.episode.turns  # its recent actions, numbered up to its turn
        assert [turn.turn for turn in turns] == list(range(3 - len(turns), 3)) and turns

    def test_a_checkpoint_written_before_the_domain_moved_into_folders_still_loads(self, tmp_path):
        """Written by 5136444 from a real game, two turns (zork_mcp.domain.episode_state,
        .connection, .messages, .status_line, .tool_offer: now in the domain's folders)."""
        shutil.copy(CHECKPOINT_BEFORE_ISSUE_48, tmp_path / CHECKPOINT_FILE)
        saved = FileCheckpoints(tmp_path).load()
        assert isinstance(saved, Checkpoint) and isinstance(saved.summary, EpisodeSummary)
        assert saved.turn == 2 and saved.episode.objective == "read the leaflet"
        assert [turn.command for turn in saved.episode.turns] == ["open mailbox", "read leaflet"]

    def test_a_file_that_is_not_a_checkpoint_says_to_start_afresh(self, tmp_path):
        (tmp_path / CHECKPOINT_FILE).write_bytes(b"not a pickle")
        with pytest.raises(ConfigurationError, match="start the episode afresh"):
            FileCheckpoints(tmp_path).load()
