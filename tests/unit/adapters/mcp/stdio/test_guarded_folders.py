"""A folder named on a server's command line is granted to it unless it is, or holds, the
working folder, the home folder or a folder the server's entry may write (its own folder of
the episode): judged as the kernel sees folders (issue 66), so a log folder behind a symbolic
link, or a name with `..`, is still the same folder to the guard."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zork_mcp.adapters.mcp.stdio.sandbox import server_facts


@pytest.fixture
def data_disk(tmp_path, monkeypatch):
    """A project whose logs/ is a link to a data disk's folder, as the issue found it."""
    project, data = tmp_path / "project", tmp_path / "data"
    (data / "logs" / "ep" / "servers" / "fs").mkdir(parents=True)
    (data / "gift").mkdir()
    project.mkdir()
    (project / "logs").symlink_to(data / "logs", target_is_directory=True)
    monkeypatch.chdir(project)
    own = project / "logs" / "ep" / "servers" / "fs"  # as the agent names it: unresolved
    return data, own


def granted(args: list[str], own: Path) -> tuple[str, ...]:
    env = {"HOME": str(own.parents[4] / "home")}
    return server_facts("node", args, env, guarded=[str(own)]).arg_folders


def test_the_data_folder_behind_the_log_link_is_refused_and_a_gift_beside_it_granted(
    data_disk,
):
    data, own = data_disk
    assert granted([str(data)], own) == ()
    assert granted([str(data / "logs")], own) == ()
    assert granted([str(data / "logs" / "ep")], own) == ()
    assert granted([str(data / "gift")], own) == (os.path.realpath(data / "gift"),)


def test_a_name_with_dot_dot_is_the_folder_it_reaches(data_disk):
    data, own = data_disk
    roundabout = data / "gift" / ".." / "logs"
    assert granted([str(roundabout)], own) == ()


def test_a_link_to_the_episode_folder_is_refused_as_the_folder_itself(data_disk, tmp_path):
    data, own = data_disk
    link = tmp_path / "shortcut"
    link.symlink_to(data / "logs" / "ep", target_is_directory=True)
    assert granted([str(link)], own) == ()
