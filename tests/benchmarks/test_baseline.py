"""The watched numbers (issue 56): a headline worse than benchmarks/baseline.json by more
than its margin fails the benchmark, and a planted regression (100 MB more in every game
process, through tests/support/planted) fails the quick sweep that the tests run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from benchmarks.baseline import MEMORY_MARGIN, judge, memory, ratio, record, regressions
from tests.support.paths import ROOT


@pytest.fixture
def baseline(tmp_path):
    path = tmp_path / "baseline.json"
    record("sweep", "quick", [memory("game_pss_mb", 10.0), ratio("efficiency", 0.8)], path)
    return path


def test_a_number_within_its_margin_passes(baseline):
    headlines = [
        memory("game_pss_mb", 10.0 * (1 + MEMORY_MARGIN) - 0.01),
        ratio("efficiency", 0.75),
    ]
    assert regressions("sweep", "quick", headlines, baseline) == []


def test_more_memory_or_a_lower_ratio_beyond_the_margin_is_a_regression(baseline):
    headlines = [memory("game_pss_mb", 110.0), ratio("efficiency", 0.70)]
    found = regressions("sweep", "quick", headlines, baseline)
    assert [text.split()[0] for text in found] == ["game_pss_mb", "efficiency"]
    with pytest.raises(SystemExit, match=r"game_pss_mb 110\.00 MB is worse"):
        judge("sweep", "quick", headlines, path=baseline)


def test_sizes_nobody_recorded_are_not_judged(baseline):
    assert regressions("sweep", "episodes=3", [memory("game_pss_mb", 999.0)], baseline) == []


def test_record_keeps_the_release_and_the_other_entries(baseline):
    record("sweep", "wide", [memory("peak_pss_mb", 1700.0)], baseline)
    data = json.loads(baseline.read_text())
    assert set(data["benchmarks"]["sweep"]) == {"quick", "wide"}
    assert data["benchmarks"]["sweep"]["wide"]["release"] == data["release"]


def test_the_repository_records_the_quick_sweep():
    data = json.loads((ROOT / "benchmarks" / "baseline.json").read_text())
    assert {"peak_pss_mb", "game_pss_mb"} <= set(
        data["benchmarks"]["eval_sweep"]["quick"]["numbers"]
    )


@pytest.mark.slow
def test_a_planted_100_mb_in_every_game_process_fails_the_quick_sweep():
    planted = str(ROOT / "tests" / "support" / "planted")
    env = {**os.environ, "ZORK_MCP_PLANTED_GAME_MB": "100"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [planted, env.get("PYTHONPATH")]))
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.eval_sweep", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode != 0, run.stdout
    assert "eval_sweep regressed against baseline.json" in run.stderr
    assert "game_pss_mb" in run.stderr
