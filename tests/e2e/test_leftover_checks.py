"""Issue 39: each test session checks only its own temp folder for leftovers, so two runs on
one machine (a sweep, a second test session, a mutation run) never fail each other."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.slow

LEAVES_A_GAME_FOLDER = """
import tempfile
from pathlib import Path

def test_leaves_a_game_folder():
    Path(tempfile.mkdtemp(prefix="zork_mcp_game_")).joinpath("story").write_text("left")
"""
ANOTHER_RUN_LEAVES_ONE_MEANWHILE = """
import os
import tempfile

def test_another_run_makes_a_game_folder_meanwhile():
    tempfile.mkdtemp(prefix="zork_mcp_game_", dir=os.environ["ANOTHER_RUNS_TEMP"])
"""


def inner_session(test_file: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    """A test session of its own over `test_file`, with this project's conftest as a plugin."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p",
               "no:cacheprovider", "--rootdir", str(test_file.parent), str(test_file)]  # fmt: skip
    env = {**os.environ, **environ}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_a_session_fails_on_a_game_folder_it_left_and_leaves_no_folder_of_its_own(tmp_path):
    test_file = tmp_path / "test_leaves.py"
    test_file.write_text(LEAVES_A_GAME_FOLDER)
    before = set(Path(tempfile.gettempdir()).iterdir())
    inner = inner_session(test_file)
    assert inner.returncode == 1, inner.stdout
    assert "game folders outlived the tests that made them: zork_mcp_game_" in inner.stdout
    assert set(Path(tempfile.gettempdir()).iterdir()) == before


def test_a_game_folder_another_run_makes_meanwhile_does_not_fail_this_session(tmp_path):
    """The other run writes where every process on the machine writes by default (here the
    temp folder the inner session was started with) while the inner session runs."""
    test_file = tmp_path / "test_other_run.py"
    test_file.write_text(ANOTHER_RUN_LEAVES_ONE_MEANWHILE)
    shared = tmp_path / "shared"
    shared.mkdir()
    inner = inner_session(test_file, TMPDIR=str(shared), ANOTHER_RUNS_TEMP=str(shared))
    assert inner.returncode == 0, inner.stdout
    assert "outlived" not in inner.stdout
    assert [path.name[:14] for path in shared.iterdir()] == ["zork_mcp_game_"]


def test_the_session_gives_its_processes_its_own_temp_folder():
    assert os.environ["TMPDIR"] == tempfile.gettempdir()
    assert Path(tempfile.gettempdir()).name.startswith("zt")
