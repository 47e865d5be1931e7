"""A folder named on a server's command line is granted to it unless it is, or holds, the
working folder, the home folder or a folder the server's entry may write (its own folder of
the episode): judged as the kernel sees folders (issue 66), so a log folder behind a symbolic
link, a bind mount or a name with `..`, is still the same folder to the guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from zork_mcp.adapters.mcp.stdio.sandbox import server_facts
from zork_mcp.adapters.posix.namespaces import namespaces_available


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


BIND_MOUNTED = """
import json, os, sys
from zork_mcp.adapters.mcp.stdio.sandbox import server_facts
from zork_mcp.adapters.posix import namespaces
data, mirror, own, home = sys.argv[1:]
namespaces.unshare(sealed=True, network=False)  # a mount namespace of its own to bind in
MS_BIND, MS_REC = 0x1000, 0x4000
if namespaces._libc().mount(data.encode(), mirror.encode(), None, MS_BIND | MS_REC, None):
    raise OSError("mount --bind failed")
facts = server_facts("node", [mirror, mirror + "/gift"], {"HOME": home}, guarded=[own])
print(json.dumps(facts.arg_folders))
"""


@pytest.mark.skipif(not namespaces_available(), reason="needs user namespaces to bind-mount")
def test_a_bind_mount_of_the_log_folder_is_the_folder_itself(data_disk, tmp_path):
    """The data disk bound at another path, as `mount --bind` would (in a mount namespace
    of the test's own): a path through it holds the episode's folder all the same; a folder
    beside the logs, reached through it, is granted."""
    data, own = data_disk
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    home = tmp_path / "home"
    argv = [str(data), str(mirror), str(own), str(home)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    shown = subprocess.run(
        [sys.executable, "-c", BIND_MOUNTED, *argv], capture_output=True, text=True, env=env
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == [str(mirror / "gift")]
