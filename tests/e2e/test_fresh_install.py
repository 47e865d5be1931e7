"""A new user's install: the README's one `pip install -e .` gives every main command,
sweeps included (issue 46), with no extra to remember.

The project's own requirements are what is judged here, so the fresh venv is filled by uv
(a dev dependency) from the packages the test command's install left in uv's cache: the
same requirements resolved from the same metadata, the same editable build through
setuptools. Offline first: online, uv revalidates each cached file with the registry, and
this registry answers "modified" for jericho's sdist, so jericho was rebuilt each time (its
C, ~20 s of CPU); from the cache, the install takes ~2 s. A cache that lacks a package (a
venv filled by pip) makes it install online."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.slow


def test_the_readmes_install_in_a_fresh_venv_runs_eval_help(tmp_path: Path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    uv = Path(sys.executable).parent / "uv"
    install = [str(uv), "pip", "install", "-q", "--python", str(venv), "-e", str(ROOT)]
    if subprocess.run([*install, "--offline"], capture_output=True, timeout=600).returncode:
        subprocess.run(install, check=True, capture_output=True, timeout=600)
    for command in (["eval", "--help"], ["show", "--help"], ["--help"]):
        done = subprocess.run(
            [str(venv / "bin" / "zork-mcp"), *command], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr and done.stdout.startswith("usage: zork-mcp")
