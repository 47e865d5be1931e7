"""Why an episode ended is an EndReason that the orchestrator, the CLI's exit codes, a
sweep's rows and its scheduler all import (STYLE rule 22), held in files as the same strings
as before it was an enum, so checkpoints and results written before still read."""

from __future__ import annotations

import pickle
import shutil

import pytest

from tests.support.paths import CHECKPOINT_BEFORE_ISSUE_28
from zork_mcp.adapters.storage.checkpoint_file import PICKLED_FILE, FileCheckpoints
from zork_mcp.app.cli import EXIT_CODES
from zork_mcp.domain.episode.episode import EndReason, EpisodeSummary

BEFORE_ISSUE_28 = CHECKPOINT_BEFORE_ISSUE_28


def test_an_end_reason_is_the_string_files_hold_and_an_unknown_one_is_refused():
    assert EpisodeSummary("e", end_reason="game_over").end_reason is EndReason.GAME_OVER  # type: ignore[arg-type]
    assert EXIT_CODES.get("interrupted") == EXIT_CODES[EndReason.INTERRUPTED] == 130  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="game_won"):
        EpisodeSummary("e", end_reason="game_won")  # type: ignore[arg-type]


def test_an_episode_still_running_when_it_is_recorded_failed_before_it_could_end():
    assert EndReason.RUNNING.as_finished() is EndReason.ERROR
    assert EndReason.TURN_LIMIT.as_finished() is EndReason.TURN_LIMIT


def test_a_checkpoint_holds_the_end_reason_as_its_string_and_reads_back_the_enum():
    data = pickle.dumps(EpisodeSummary("e", end_reason=EndReason.TURN_LIMIT))
    assert b"EndReason" not in data and b"turn_limit" in data
    assert pickle.loads(data).end_reason is EndReason.TURN_LIMIT


def test_a_checkpoint_written_before_end_reasons_were_an_enum_reads_one(tmp_path):
    shutil.copy(BEFORE_ISSUE_28, tmp_path / PICKLED_FILE)
    summary = FileCheckpoints(tmp_path, trust_pickle=True).load().summary
    assert summary.end_reason is EndReason.RUNNING and summary.turns == 2


def test_a_checkpoint_written_before_summaries_held_an_end_reason_reads_as_running():
    summary = EpisodeSummary.__new__(EpisodeSummary)
    summary.__setstate__({"episode_id": "e", "turns": 3, "score": 5})  # what unpickling does
    assert (summary.end_reason, summary.turns) == (EndReason.RUNNING, 3)
