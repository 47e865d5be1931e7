"""What a sweep says of playing on: after a Ctrl-C at any moment, what it kept and the exact
command that plays the rest; after a re-run that plays less than its user may expect, why."""

from __future__ import annotations

from collections.abc import Sequence

from zork_mcp.app.command_line import typed
from zork_mcp.domain.sweep.scheduler import SweepState

RESUME = "--resume"


def resume_command(argv: Sequence[str]) -> str:
    """The sweep's own command (`eval` and `argv`) with --resume: the episodes not stored
    play, an interrupted one on from its checkpoint, and failed ones again."""
    return typed(["eval", *argv, *([] if RESUME in argv else [RESUME])])


def interrupted(argv: Sequence[str]) -> str:
    """A Ctrl-C that ended the command wherever it came (before the sweep began, while it
    stopped, while its report was written): no episode was stored as failed."""
    if argv[:1] == ["report"]:
        return f"Interrupted: the report is not finished. To write it: {typed(['eval', *argv])}"
    return (
        "Interrupted. No episode was stored as failed: those that finished are stored, and "
        f"this plays the others (on from their checkpoints): {resume_command(argv)}"
    )


def stopped(state: SweepState, argv: Sequence[str]) -> str:
    """A sweep that Ctrl-C stopped while its episodes played (or as its workers ended)."""
    if not state.remaining:
        return "Stopped: every episode is stored, none as failed; nothing is left to play."
    return (
        f"Stopped: {state.interrupted} running episode(s) were interrupted and "
        f"{state.remaining - state.interrupted} not begun; none is stored as failed. To play "
        f"them, the interrupted ones on from their checkpoints: {resume_command(argv)}"
    )


def rerun(state: SweepState, name: str, argv: Sequence[str]) -> str | None:
    """Why a re-run played fewer episodes than its sweep has, where it did: every episode
    was stored already, or failed ones were kept (only --resume plays them again)."""
    said = []
    if state.skipped == state.total and state.total:
        said.append(
            f"Nothing left to play: the {state.total} episode(s) of sweep '{name}' are stored."
        )
    if state.kept_failed:
        said.append(
            f"{state.kept_failed} episode(s) failed in an earlier run and were kept, not "
            f"played again. To play them again: {resume_command(argv)}"
        )
    return " ".join(said) or None
