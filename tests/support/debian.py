"""Debian packages a test needs (a browser, a terminal multiplexer), installed with apt-get
when they are missing and this is root on a Debian machine (as CI is); elsewhere the test
skips, saying how to get them. Under CI a failed install fails, so nothing goes untested
there unnoticed."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

import pytest

from tests.support.cache_lock import installing
from tests.support.paths import ROOT

APT = ROOT / ".cache" / "apt"  # names the lock only: apt-get installs system-wide


def install(packages: Sequence[str]) -> None:
    """apt-get install `packages`, or skip (fail under CI) saying why."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip(f"needs Debian's {', '.join(packages)}: apt-get install {' '.join(packages)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = ["-o", "DPkg::Lock::Timeout=600"]  # another apt-get on the machine: wait, not fail
    commands = (
        ["apt-get", *wait, "update", "-qq"],
        ["apt-get", *wait, "install", "-y", "-qq", *packages],
    )
    with installing(APT):  # parallel workers that both find a package missing take turns
        for command in commands:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                message = f"{' '.join(command)} failed: {done.stderr[-500:]}"
                if os.environ.get("CI"):
                    pytest.fail(message)
                pytest.skip(message)
