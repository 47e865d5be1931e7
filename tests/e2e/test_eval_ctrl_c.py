"""Ctrl-C at any moment of `zork-mcp eval` (issue 67), as a terminal sends it: SIGINT to the
sweep's whole process group, its workers too. Whenever it comes (while the app loads, while
the workers import, mid-episode, while the report is written), the sweep exits with the
interrupt's status, prints no traceback, stores no episode as failed, leaves no process or
temp folder behind, and says the exact command that plays on; that command plays the rest."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.eval_peers import WalkthroughPeer
from tests.support.processes import as_from_a_terminal, processes_with_environment
from tests.support.sweeps import importing, sweep_args, wait_for_rows, worker_pids
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore

pytestmark = pytest.mark.slow

EPISODES, TURNS = 4, 6
LEFT_SECONDS = 10  # an interrupted worker's episodes close their servers and games
NOTHING_LEFT = "every episode is stored, none as failed; nothing is left to play"


def peer() -> WalkthroughPeer:
    """Each answer takes a while, as a real model's do: a Ctrl-C finds episodes mid-turn."""
    return WalkthroughPeer(canonical_tools=("raw.environ", "raw.pid"), tool="raw.pid",
                           tool_arguments={}, latency=0.2)  # fmt: skip


def wait_until(sweep: subprocess.Popen, moment: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 120
    while not moment():
        assert sweep.poll() is None, f"the sweep ended before {what}: {sweep.communicate()}"
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.01)


MOMENTS: dict[str, Callable[[subprocess.Popen, Path], None]] = {
    "while the app loads": lambda sweep, results: wait_until(
        sweep, lambda: importing(sweep), "loading"
    ),
    "while the workers import": lambda sweep, results: wait_until(
        sweep, lambda: bool(worker_pids(sweep)), "a worker"
    ),
    "mid-episode": lambda sweep, results: wait_for_rows(results, sweep, at_least=1) and None,
    "while the report is written": lambda sweep, results: (
        wait_for_rows(results, sweep, at_least=EPISODES) and None
    ),
}


@pytest.mark.parametrize("moment", MOMENTS)
def test_ctrl_c_stores_no_failure_prints_no_traceback_and_says_how_to_play_on(
    tmp_path, zork_game, moment
):
    results, marker, temp = tmp_path / "results.sqlite", uuid.uuid4().hex, tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "EVAL_MARKER": marker, "TMPDIR": str(temp)}
    spec = ["--model", "local:p1-q1", "--mcp", "on", "--episodes", str(EPISODES),
            "--max-turns", str(TURNS), "--game", str(zork_game)]  # fmt: skip
    with peer().serve() as url:
        command = [sys.executable, "-m", "zork_mcp.app",
                   *sweep_args(url, tmp_path, results, *spec, workers=2)]  # fmt: skip
        sweep = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True,
                                 preexec_fn=as_from_a_terminal)  # fmt: skip
        MOMENTS[moment](sweep, results)
        os.killpg(sweep.pid, signal.SIGINT)  # as a terminal: the sweep and its workers
        out, err = (stream.decode() for stream in sweep.communicate(timeout=120))
        said = out + err
        assert sweep.returncode == 130, said[-3000:]
        assert "Traceback" not in said and "KeyboardInterrupt" not in said, said[-3000:]
        stored = SqliteResultStore(results).episodes() if results.is_file() else []
        assert [r.error for r in stored if r.failed] == []
        assert all(r.turns == TURNS for r in stored)
        assert_nothing_left(marker, temp)
        if NOTHING_LEFT not in said:  # Ctrl-C came once every episode was stored
            again = play_on(said)
            done = subprocess.run(again, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-3000:]
    finished = SqliteResultStore(results).episodes()
    assert len(finished) == EPISODES and all(r.turns == TURNS for r in finished)
    assert not any(r.failed for r in finished)
    assert_nothing_left(marker, temp)


def play_on(said: str) -> list[str]:
    """The command the sweep said plays on: the last one it named, in full."""
    named = [line for line in said.splitlines() if f"{sys.executable} -m zork_mcp.app" in line]
    assert named, f"no command to play on in: {said[-3000:]}"
    return shlex.split(named[-1][named[-1].index(sys.executable) :])


def assert_nothing_left(marker: str, temp: Path) -> None:
    deadline = time.monotonic() + LEFT_SECONDS
    while processes_with_environment("EVAL_MARKER", marker) or list(temp.iterdir()):
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert processes_with_environment("EVAL_MARKER", marker) == []
    assert sorted(path.name for path in temp.iterdir()) == []
