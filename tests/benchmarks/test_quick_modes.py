"""Every benchmark still runs (issue 48: benchmarks that cannot rot): each module of
benchmarks/ is run with `--quick` as `python -m benchmarks.<name> --quick` and must exit 0
and print its numbers. Its headline numbers are judged by the benchmark itself, against
benchmarks/baseline.json (tests/benchmarks/test_baseline.py)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.slow

BENCHMARKS = ROOT / "benchmarks"
SHARED = {"__init__", "support", "baseline"}  # modules of benchmarks/ that are not benchmarks
TIMEOUT_SECONDS = 180
NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w-])")  # 12, 0.35, 5/350; not p95


def benchmark_names() -> list[str]:
    return sorted(path.stem for path in BENCHMARKS.glob("*.py") if path.stem not in SHARED)


def test_benchmarks_are_found():
    assert "prompt_size" in benchmark_names()


@pytest.mark.parametrize("name", benchmark_names())
def test_benchmark_runs_quick(name):
    code, output, errors = run_quick(name)
    if "unrecognized arguments: --quick" in errors:
        pytest.fail(
            f"benchmarks/{name}.py has no quick mode: add `--quick` (parse its command line with "
            "benchmarks.support.parse_arguments, giving the tiny sizes to use), so that it "
            f"runs here in seconds; or, if it is not a benchmark, add {name!r} to SHARED"
        )
    assert code == 0, f"`python -m benchmarks.{name} --quick` exited {code}:\n{errors[-4000:]}"
    assert NUMBER.search(output), f"benchmarks.{name} --quick printed no number:\n{output}"


def run_quick(name: str) -> tuple[int, str, str]:
    """Its exit code, stdout and stderr; its whole process group ends if it overruns."""
    process = subprocess.Popen(
        [sys.executable, "-m", f"benchmarks.{name}", "--quick"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the benchmark and what it starts: one group to end
    )
    try:
        output, errors = process.communicate(timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"benchmarks.{name} --quick ran over {TIMEOUT_SECONDS} s: it must take seconds")
    return process.returncode, output, errors
