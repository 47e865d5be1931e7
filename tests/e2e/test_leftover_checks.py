"""Issue 39: each test session checks only its own temp folder for leftovers, so two runs on
one machine (a sweep, a second test session, a mutation run) never fail each other."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.processes import as_from_a_terminal, processes_with_environment

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


def inner_session(
    test_file: Path, *options: str, **environ: str
) -> subprocess.CompletedProcess[str]:
    """A test session of its own over `test_file`, with this project's conftest as a plugin."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p",
               "no:cacheprovider", "--rootdir", str(test_file.parent), *options,
               str(test_file)]  # fmt: skip
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


def test_a_game_folder_left_in_a_parallel_worker_fails_the_run(tmp_path):
    """A worker's temp folder is its own, and the worker's exit status is not the run's: the
    main process must hear of the folder and fail the run (pytest-xdist)."""
    pytest.importorskip("xdist")
    test_file = tmp_path / "test_leaves.py"
    test_file.write_text(LEAVES_A_GAME_FOLDER)
    before = set(Path(tempfile.gettempdir()).iterdir())
    inner = inner_session(test_file, "-n", "2")
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


PLAYS_UNTIL_INTERRUPTED = """
import os
import time
from pathlib import Path

import pytest

from zork_mcp.adapters.game.jericho.game_env import JerichoGameEnv


@pytest.mark.parametrize("n", range(4))
def test_plays_until_interrupted(n, zork_game, tmp_path):
    env = JerichoGameEnv(zork_game, seed=n)
    try:
        env.reset()
        env.step("open mailbox")
        Path(os.environ["READY_FOLDER"], str(n)).touch()
        time.sleep(300)
    finally:
        env.close()
"""


def test_an_interrupted_parallel_run_leaves_no_process_nor_folder(tmp_path):
    """Ctrl-C reaches a parallel run's whole process group (the main process and its
    workers) while every worker has a game process and its folder: when the run has ended,
    none of them is left, nor the session's temp folder (pytest-xdist)."""
    pytest.importorskip("xdist")
    test_file = tmp_path / "test_interrupted.py"
    test_file.write_text(PLAYS_UNTIL_INTERRUPTED)
    ready, mark = tmp_path / "ready", f"{os.getpid()}-{tmp_path.name}"
    ready.mkdir()
    before = set(Path(tempfile.gettempdir()).iterdir())
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p",
               "no:cacheprovider", "--rootdir", str(tmp_path), "-n", "2",
               str(test_file)]  # fmt: skip
    env = {**os.environ, "READY_FOLDER": str(ready), "LEFTOVER_MARK": mark}
    run = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True, text=True, preexec_fn=as_from_a_terminal,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(list(ready.iterdir())) < 2 and run.poll() is None:
            assert time.monotonic() < deadline, "the workers never started their games"
            time.sleep(0.1)
        assert run.poll() is None, run.communicate()[0]
        assert processes_with_environment("LEFTOVER_MARK", mark), "nothing was running"
        os.killpg(run.pid, signal.SIGINT)
        output, _ = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output
    assert processes_with_environment("LEFTOVER_MARK", mark) == [], output
    assert set(Path(tempfile.gettempdir()).iterdir()) == before, output
