"""`--backend ray` on a local Ray instance (2 CPUs) stores what the local pool stores, with
workers that share no folder with the driver: each plays in a private log folder
($ZORK_MCP_WORKER_LOG_DIR, which Ray's workers inherit) and the logs come back."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import ray  # in the dev extra, so CI always runs this test

from tests.support.sweeps import peer, stored, sweep_args, wait_for_rows
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.adapters.sweep.ray_cluster import LOG_DIR_VARIABLE
from zork_mcp.app.cli import main

# One local Ray instance at a time: a parallel run keeps Ray's tests on one worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
EPISODE_FILES = {"events.jsonl", "episode.log", "checkpoint.json"}


def test_the_ray_backend_stores_the_same_results_and_brings_every_log_home(
    tmp_path, zork_game, monkeypatch
):
    local, on_ray, node = tmp_path / "local.sqlite", tmp_path / "ray.sqlite", tmp_path / "node"
    monkeypatch.setenv(LOG_DIR_VARIABLE, str(node))
    folders_before = multiprocessing_folders()
    spec = ["--name", "resume", "--model", "local:p1-q0", "--mcp", "on,off", "--episodes", "2",
            "--max-turns", "8", "--game", str(zork_game)]  # fmt: skip
    with peer().serve() as url:
        assert main([*sweep_args(url, tmp_path, local, *spec),
                     "--log-dir", str(tmp_path / "local")]) == 0  # fmt: skip
        assert main([*sweep_args(url, tmp_path, on_ray, *spec, workers=None), "--backend", "ray",
                     "--log-dir", str(tmp_path / "driver")]) == 0  # fmt: skip
    assert not ray.is_initialized()
    assert len(stored(on_ray)) == 4 and stored(on_ray) == stored(local)
    assert_logs_home(on_ray, tmp_path / "driver")
    assert node.is_dir() and list(node.iterdir()) == [], "played there, nothing left behind"
    assert_no_folder_left(folders_before, seconds=5)


def assert_no_folder_left(before: set[Path], *, seconds: float) -> None:
    """A forkserver removes its folder as it exits, a moment after its actor."""
    deadline = time.monotonic() + seconds
    while multiprocessing_folders() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert multiprocessing_folders() - before == set(), "the actors' games' pymp-*"


def multiprocessing_folders() -> set[Path]:
    """multiprocessing's temp folders (a forked game's forkserver socket), this process's
    own aside: the actors ended as processes do, so theirs are gone (Ray's shutdown of a
    local instance killed actors still ending, and left them)."""
    own = multiprocessing.process.current_process()._config.get("tempdir")
    return {path for path in Path(tempfile.gettempdir()).glob("pymp-*") if str(path) != own}


def test_a_killed_ray_sweep_resumes_to_the_results_of_a_clean_run(tmp_path, zork_game):
    killed, clean, node = tmp_path / "killed.sqlite", tmp_path / "clean.sqlite", tmp_path / "node"
    folders_before = multiprocessing_folders()
    spec = ["--name", "resume", "--model", "local:p1-q1", "--mcp", "off", "--episodes", "6",
            "--max-turns", "20", "--game", str(zork_game), "--parallel", "2"]  # fmt: skip
    driver = ["--log-dir", str(tmp_path / "driver")]
    with peer().serve() as url:
        command = [
            sys.executable,
            "-m",
            "zork_mcp.app",
            *sweep_args(url, tmp_path, killed, *spec, workers=None),
            "--backend",
            "ray",
            *driver,
        ]
        sweep = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL,
                                 env={**os.environ, LOG_DIR_VARIABLE: str(node)})  # fmt: skip
        rows = wait_for_rows(killed, sweep, timeout=180)
        os.killpg(sweep.pid, signal.SIGKILL)
        sweep.wait()
        assert 0 < rows < 6, "the sweep must be killed mid-way"
        assert_no_folder_left(folders_before, seconds=30)  # Ray notices its driver is gone
        os.environ[LOG_DIR_VARIABLE] = str(node)
        try:
            assert main([*sweep_args(url, tmp_path, killed, *spec, workers=None),
                         "--backend", "ray", *driver]) == 0  # fmt: skip
        finally:
            del os.environ[LOG_DIR_VARIABLE]
        assert main([*sweep_args(url, tmp_path, clean, *spec), "--log-dir",
                     str(tmp_path / "clean")]) == 0  # fmt: skip
    assert stored(killed) == stored(clean)
    assert_logs_home(killed, tmp_path / "driver")


def assert_logs_home(results: Path, driver: Path) -> None:
    for record in SqliteResultStore(results).episodes():
        folder = Path(record.log_dir)
        assert folder.parent == driver, f"{record.key}: its log_dir is the driver's"
        assert {f.name for f in folder.iterdir()} >= EPISODE_FILES, sorted(folder.iterdir())
