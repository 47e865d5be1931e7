"""The local back-end plays each episode with the player the app gives it, in a spawned
worker process that imports no part of the app (the adapter reaches the app only so)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import sweep_players
from tests.support.paths import ROOT
from zork_mcp.adapters.sweep.processes import ProcessSweepBackend, _Worker
from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.controls import EpisodeControls, EpisodeInterrupted
from zork_mcp.domain.sweep.episodes import Cell, EpisodeSpec, EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.records import EpisodeRecord

pytestmark = pytest.mark.slow  # spawns a worker process


def scored_by_seed(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
    """A player a worker can import by name: the score is the seed, the error what app
    modules the worker has loaded."""
    loaded = sorted(name for name in sys.modules if name.startswith("zork_mcp.app"))
    shared = "shared" if controls.shared else "alone"
    return task.spec.record(status="done", score=task.spec.seed, error=f"{shared} {loaded}")


CELL = Cell(ModelSpec(parse_model("local:m")), "off")


def test_a_worker_plays_with_the_given_player_and_imports_no_app():
    tasks = [
        EpisodeTask(
            EpisodeSpec("s", CELL, i, 20 + i, 5), Path("logs"), Path("x"), ProjectSettings()
        )
        for i in range(3)
    ]
    backend = ProcessSweepBackend(1, per_worker=2, player=scored_by_seed)
    try:
        records = [future.result(timeout=60) for future in map(backend.submit, tasks)]
    finally:
        backend.close()
    assert [r.score for r in records] == [20, 21, 22]
    assert {r.error for r in records} == {"shared []"}


def test_a_ctrl_c_while_its_worker_starts_neither_kills_it_nor_prints_a_traceback(capfd):
    """A terminal's Ctrl-C reaches the workers too (they are in its process group), and
    one that came while a worker imported killed it with a traceback and failed its
    episodes (issue 67). Here Ctrl-C after Ctrl-C reaches the worker from its start on."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's
    backend = ProcessSweepBackend(1, per_worker=1, player=scored_by_seed)
    try:
        future = backend.submit(
            EpisodeTask(EpisodeSpec("s", CELL, 0, 20, 5), Path("l"), Path("x"), ProjectSettings())
        )
        [pid] = backend.pids
        while not future.done():
            os.kill(pid, signal.SIGINT)
            time.sleep(0.005)
        record = future.result()
    finally:
        backend.close()
        signal.signal(signal.SIGINT, previous)
    assert record.score == 20
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    assert "KeyboardInterrupt" not in capfd.readouterr().err


def test_an_interrupt_ends_a_worker_still_starting_at_once_its_episodes_interrupted(tmp_path):
    """A worker that has begun no episode has nothing to close: a Ctrl-C while it imports
    (14 s on a new user's machine, issue 67) ends it, rather than waiting for it to be up
    to tell it to stop. Its episodes were not played: interrupted, to be played again."""
    backend = ProcessSweepBackend(1, per_worker=2, player=sweep_players.until_interrupted)
    try:
        played = sweep_players.tasks(2, tmp_path)
        futures = [backend.submit(task) for task in played]
        assert not any(future.running() for future in futures), "its worker is still starting"
        asked = time.monotonic()
        backend.interrupt()
        for future in futures:
            with pytest.raises(EpisodeInterrupted):
                future.result(timeout=60)
        assert time.monotonic() - asked < 1.0
        assert not any(sweep_players.started(task).exists() for task in played)
    finally:
        backend.close()


class Answers:
    """The parent's end of a worker's pipe, holding what the worker sent before it died."""

    def __init__(self, *answers: tuple) -> None:
        self.answers = list(answers)

    def recv(self) -> tuple:
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


def test_what_a_dead_worker_sent_for_episodes_already_failed_is_let_go(tmp_path):
    """A send to a worker that died fails every episode it had; what it had sent before,
    still in the pipe, names episodes no longer there (the reader thread died of a KeyError
    and printed its traceback)."""
    record = sweep_players.tasks(1, tmp_path)[0].spec.record(status="done")
    reader = _Worker(1, sweep_players.scored_by_seed)
    reader._conn = Answers(("began", 7, None), ("done", 7, record), ("failed", 8, None))
    reader._read()
    assert not reader.alive


DRIVER = """
import sys
from pathlib import Path

marks, choice, root = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
with marks.open("a") as file:  # each time this module's body runs, in any process
    file.write(__name__ + "\\n")
sys.path.insert(0, root)
from tests.support.sweep_players import scored_by_seed, tasks
from zork_mcp.adapters.sweep.processes import ProcessSweepBackend, _Worker


def own(task, controls):
    return task.spec.record(status="done", score=-task.spec.seed)


if __name__ == "__main__":
    player = own if choice == "own" else scored_by_seed
    backend = ProcessSweepBackend(1, per_worker=2, player=player)
    try:
        futures = [backend.submit(task) for task in tasks(2, marks.parent)]
        print([future.result(timeout=60).score for future in futures])
    finally:
        backend.close()
"""


@pytest.mark.parametrize(
    ("player", "scores", "runs"),
    [
        ("imported", [20, 21], ["__main__"]),  # its worker never runs the driver again
        ("own", [-20, -21], ["__main__", "__mp_main__"]),  # its worker needs the driver's
    ],
)
def test_a_worker_runs_its_drivers_main_script_only_for_a_player_defined_there(
    tmp_path, player, scores, runs
):
    script, marks = tmp_path / "driver.py", tmp_path / "marks.txt"
    script.write_text(DRIVER)
    done = subprocess.run(
        [sys.executable, str(script), str(marks), player, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == str(scores)
    assert marks.read_text().split() == runs
