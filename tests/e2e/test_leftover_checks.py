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


SESSIONS_ONE_AFTER_ANOTHER = """
import os
import sys
import tempfile

import pytest

before = (os.environ.get("TMPDIR"), tempfile.gettempdir())
codes = [pytest.main(["-q", "-p", "tests.conftest", "-p", "no:cacheprovider", "--rootdir",
                      sys.argv[2], sys.argv[1]]) for _ in range(2)]
after = (os.environ.get("TMPDIR"), tempfile.gettempdir())
print("codes", [int(code) for code in codes], "temp kept", before == after)
"""
MAKES_A_TEMP_FILE = """
import tempfile

def test_makes_a_temp_file():
    with tempfile.TemporaryFile() as file:
        file.write(b"x")
"""


def test_sessions_one_after_another_in_one_process_each_get_a_live_temp_folder(tmp_path):
    """mutmut runs pytest in its own process again and again: a session must leave the
    process's temp folder as it found it, not pointing at the folder it removed."""
    test_file = tmp_path / "test_temp_file.py"
    test_file.write_text(MAKES_A_TEMP_FILE)
    command = [sys.executable, "-c", SESSIONS_ONE_AFTER_ANOTHER, str(test_file), str(tmp_path)]
    ran = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "codes [0, 0] temp kept True" in ran.stdout, ran.stdout + ran.stderr
