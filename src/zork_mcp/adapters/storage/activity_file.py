"""An episode's activity in its log folder (`activity.json`): what it waits for now, written
by the worker that plays it each time that changes, and read by the sweep's live panel, which
counts the wait from the file's time. Written whole (own_files.replace: a reader sees the old
or the new, never half), read within a bound, and removed when the episode ends."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from zork_mcp.adapters.storage import own_files
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.facts.activity import Activity, Waiting

ACTIVITY_FILE = "activity.json"
MOST_BYTES = 16_384  # what is read of it: an activity is far shorter
COMMAND_CHARS = 200  # of the command the game plays (the model's, so bounded)
TOOLS = 16  # tool calls named at once


class ActivityFile:
    """The activity file of the episode whose log folder is `directory`."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / ACTIVITY_FILE

    def write(self, activity: Activity | None) -> None:
        """Now `activity` (None: no turn yet, and nothing to say)."""
        if activity is None:
            self.remove()
            return
        fields = {
            "turn": activity.turn,
            "waiting": activity.waiting.value,
            "calls": activity.calls,
            "tools": list(activity.tools[:TOOLS]),
            "command": activity.command[:COMMAND_CHARS],
            "mcp": activity.mcp,
        }
        own_files.replace(self.path, json.dumps(fields).encode())

    def read(self) -> tuple[Activity, float] | None:
        """The activity and when it began (the file's time, seconds since the epoch); None
        when there is none, or what is there is not one."""
        try:
            fd = own_files.open_reading(self.path)
        except (OSError, ConfigurationError):
            return None
        with os.fdopen(fd, "rb") as file:
            since = os.fstat(file.fileno()).st_mtime
            raw = file.read(MOST_BYTES + 1)
        try:
            return _activity(json.loads(raw)), since
        except (ValueError, TypeError, KeyError):
            return None

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _activity(fields: Any) -> Activity:
    """The activity the fields say; ValueError, TypeError or KeyError where they do not."""
    tools, command = fields["tools"], fields["command"]
    if not (isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
        raise TypeError("tools: not a list of names")
    if not isinstance(command, str) or not all(
        isinstance(fields[key], int) for key in ("turn", "calls")
    ):
        raise TypeError("not an activity")
    return Activity(
        fields["turn"],
        Waiting(fields["waiting"]),
        fields["calls"],
        tuple(tools),
        command,
        bool(fields["mcp"]),
    )
