import json
import os
import pickle
import shutil
from dataclasses import replace

import pytest

from tests.contract.checkpoints_contract import CheckpointsContract, checkpoint
from tests.support.paths import CHECKPOINT_BEFORE_ISSUE_28, CHECKPOINT_BEFORE_ISSUE_48
from zork_mcp.adapters.storage.checkpoint_file import (
    CHECKPOINT_FILE,
    PICKLED_FILE,
    TRUST_FLAG,
    FileCheckpoints,
)
from zork_mcp.adapters.storage.own_files import ForeignFileError
from zork_mcp.domain.episode.episode import EpisodeSummary
from zork_mcp.domain.episode.episode_state import Checkpoint
from zork_mcp.domain.errors import ConfigurationError

BEFORE_ISSUE_28 = CHECKPOINT_BEFORE_ISSUE_28


class TestCheckpointFile(CheckpointsContract):
    @pytest.fixture
    def checkpoints(self, tmp_path):
        return FileCheckpoints(tmp_path / "episode")

    def test_a_checkpoint_written_before_its_classes_moved_still_loads(self, tmp_path):
        """Written by 2dcaa72 from a real game (zork_mcp.app.checkpoint.Checkpoint)."""
        shutil.copy(BEFORE_ISSUE_28, tmp_path / PICKLED_FILE)
        saved = FileCheckpoints(tmp_path, trust_pickle=True).load()
        assert isinstance(saved, Checkpoint) and isinstance(saved.summary, EpisodeSummary)
        assert (saved.turn, saved.episode.objective, saved.summary.room) == (
            2, "read the leaflet", "West of House")  # fmt: skip
        turns = saved.episode.turns  # its recent actions, numbered up to its turn
        assert [turn.turn for turn in turns] == list(range(3 - len(turns), 3)) and turns

    def test_a_checkpoint_written_before_the_domain_moved_into_folders_still_loads(self, tmp_path):
        """Written by 5136444 from a real game, two turns (zork_mcp.domain.episode_state,
        .connection, .messages, .status_line, .tool_offer: now in the domain's folders)."""
        shutil.copy(CHECKPOINT_BEFORE_ISSUE_48, tmp_path / PICKLED_FILE)
        saved = FileCheckpoints(tmp_path, trust_pickle=True).load()
        assert isinstance(saved, Checkpoint) and isinstance(saved.summary, EpisodeSummary)
        assert saved.turn == 2 and saved.episode.objective == "read the leaflet"
        assert [turn.command for turn in saved.episode.turns] == ["open mailbox", "read leaflet"]

    def test_an_old_pickle_loads_only_when_its_user_says_so(self, tmp_path):
        shutil.copy(CHECKPOINT_BEFORE_ISSUE_48, tmp_path / PICKLED_FILE)
        with pytest.raises(ConfigurationError, match=f"resume with {TRUST_FLAG}"):
            FileCheckpoints(tmp_path).load()

    def test_a_trusted_old_pickle_is_written_again_as_json(self, tmp_path):
        shutil.copy(CHECKPOINT_BEFORE_ISSUE_48, tmp_path / PICKLED_FILE)
        checkpoints = FileCheckpoints(tmp_path, trust_pickle=True)
        saved = checkpoints.load()
        checkpoints.save(replace(saved, game_state=b"state"))
        again = FileCheckpoints(tmp_path).load()  # JSON now: no trust needed
        assert again.episode.turns == saved.episode.turns and again.game_state == b"state"

    @pytest.mark.parametrize("name", [CHECKPOINT_FILE, PICKLED_FILE])
    def test_a_planted_pickle_runs_nothing_and_is_refused(self, tmp_path, name):
        ran = tmp_path / "ran"
        (tmp_path / name).write_bytes(pickle.dumps(_Planted(str(ran))))
        with pytest.raises(ConfigurationError) as refused:
            FileCheckpoints(tmp_path).load()
        assert not ran.exists()
        assert "not a checkpoint zork-mcp wrote" in str(refused.value) or TRUST_FLAG in str(
            refused.value
        )

    def test_a_file_that_is_not_a_checkpoint_says_to_start_a_new_episode(self, tmp_path):
        (tmp_path / CHECKPOINT_FILE).write_bytes(b"not a checkpoint")
        with pytest.raises(ConfigurationError, match="Start a new episode instead"):
            FileCheckpoints(tmp_path).load()

    def test_a_checkpoint_with_a_field_changed_to_another_type_is_refused(self, tmp_path):
        checkpoints = FileCheckpoints(tmp_path)
        checkpoints.save(checkpoint(2))
        saved = json.loads((tmp_path / CHECKPOINT_FILE).read_text())
        saved["turns"][0]["turn"] = {"__reduce__": "os.system"}
        (tmp_path / CHECKPOINT_FILE).write_text(json.dumps(saved))
        with pytest.raises(ConfigurationError, match=r"turns\.0\.turn"):
            checkpoints.load()

    def test_a_checkpoint_swapped_for_a_link_is_neither_read_nor_written_through(self, tmp_path):
        outside = tmp_path / "outside"
        outside.write_bytes(b"the user's file")
        episode = tmp_path / "episode"
        checkpoints = FileCheckpoints(episode)
        checkpoints.save(checkpoint(1))
        (episode / CHECKPOINT_FILE).unlink()
        (episode / CHECKPOINT_FILE).symlink_to(outside)
        with pytest.raises(ForeignFileError, match="is a symbolic link"):
            checkpoints.save(checkpoint(2))
        with pytest.raises(ForeignFileError, match=CHECKPOINT_FILE):
            checkpoints.load()
        assert outside.read_bytes() == b"the user's file"

    def test_a_hard_link_to_a_file_outside_is_refused(self, tmp_path):
        outside = tmp_path / "outside"
        outside.write_bytes(b"the user's file")
        episode = tmp_path / "episode"
        episode.mkdir()
        os.link(outside, episode / CHECKPOINT_FILE)
        with pytest.raises(ForeignFileError, match="hard link"):
            FileCheckpoints(episode).save(checkpoint(1))
        assert outside.read_bytes() == b"the user's file"


class _Planted:
    """What a server would plant: a pickle whose loading runs code (here, makes a file)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))
