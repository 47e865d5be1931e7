"""What a sweep says of playing on after a Ctrl-C, and when a re-run plays less than it
might: the exact command, with --resume once."""

from __future__ import annotations

import sys

import pytest

from zork_mcp.app.sweep.play_on import interrupted, rerun, resume_command, stopped
from zork_mcp.domain.sweep.scheduler import SweepState

ARGV = ["--model", "local:m", "--episodes", "4"]


@pytest.fixture(autouse=True)
def started_as_the_script(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/v/bin/zork-mcp", "eval", *ARGV])


def test_the_command_that_plays_on_is_the_sweeps_own_with_resume_once():
    assert resume_command(ARGV) == "/v/bin/zork-mcp eval --model local:m --episodes 4 --resume"
    assert resume_command([*ARGV, "--resume"]) == resume_command(ARGV)


def test_a_ctrl_c_says_no_episode_was_stored_as_failed_and_how_to_play_on():
    assert interrupted(ARGV).startswith("Interrupted. No episode was stored as failed")
    assert interrupted(ARGV).endswith(f": {resume_command(ARGV)}")
    state = SweepState(total=4, done=1, interrupted=2)
    assert stopped(state, ARGV) == (
        "Stopped: 2 running episode(s) were interrupted and 1 not begun; none is stored as "
        f"failed. To play them, the interrupted ones on from their checkpoints: "
        f"{resume_command(ARGV)}"
    )
    assert stopped(SweepState(total=4, done=4), ARGV) == (
        "Stopped: every episode is stored, none as failed; nothing is left to play."
    )
    report = ["report", "eval/results.sqlite"]
    assert interrupted(report) == (
        "Interrupted: the report is not finished. To write it: "
        "/v/bin/zork-mcp eval report eval/results.sqlite"
    )


def test_a_rerun_says_why_it_plays_nothing_or_keeps_failed_episodes():
    assert rerun(SweepState(total=4, skipped=2, done=2), "s", ARGV) is None
    assert rerun(SweepState(total=4, skipped=4, kept_failed=4), "s", ARGV) == (
        "Nothing left to play: the 4 episode(s) of sweep 's' are stored. 4 episode(s) failed "
        f"in an earlier run and were kept, not played again. To play them again: "
        f"{resume_command(ARGV)}"
    )
    assert rerun(SweepState(total=4, skipped=4), "s", ARGV) == (
        "Nothing left to play: the 4 episode(s) of sweep 's' are stored."
    )
