"""An episode's activity file, as its worker writes it and the sweep's panel reads it: whole,
within a bound, never through a link; anything that is not an activity reads as none."""

from __future__ import annotations

import json
import os

import pytest

from zork_mcp.adapters.storage.activity_file import ACTIVITY_FILE, MOST_BYTES, ActivityFile
from zork_mcp.adapters.storage.own_files import ForeignFileError
from zork_mcp.domain.facts.activity import Activity, Waiting


def test_what_is_written_is_read_back_with_when_it_began(tmp_path):
    file = ActivityFile(tmp_path / "episode")
    assert file.read() is None
    activity = Activity(4, Waiting.TOOLS, 2, ("memory.get_map", "memory.get_map"), mcp=True)
    file.write(activity)
    os.utime(file.path, (1_000.0, 1_000.0))
    assert file.read() == (activity, 1_000.0)
    file.write(None)
    assert file.read() is None and not file.path.exists()


def test_a_long_command_is_cut_and_what_is_not_an_activity_reads_as_none(tmp_path):
    file = ActivityFile(tmp_path)
    file.write(Activity(1, Waiting.GAME, 1, command="x" * 10_000))
    read = file.read()
    assert read is not None and len(read[0].command) == 200
    for text in ["{", "[]", json.dumps({"turn": "1"}), " " * (MOST_BYTES + 1) + "{}",
                 json.dumps({"turn": 1, "waiting": "asleep", "calls": 0, "tools": [],
                             "command": "", "mcp": False})]:  # fmt: skip
        file.path.write_text(text)
        assert file.read() is None, text


def test_a_link_in_its_place_is_neither_followed_nor_written_through(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text(json.dumps({"turn": 1, "waiting": "model", "calls": 1, "tools": [],
                                  "command": "", "mcp": False}))  # fmt: skip
    (tmp_path / ACTIVITY_FILE).symlink_to(target)
    file = ActivityFile(tmp_path)
    assert file.read() is None
    with pytest.raises(ForeignFileError):  # refused, named (the episode's writer ignores it)
        file.write(Activity(2))
    assert json.loads(target.read_text())["turn"] == 1
