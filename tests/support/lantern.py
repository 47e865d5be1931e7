"""Lantern Hill (tests/support/games/lantern.inf): a version 3 story file no profile knows,
compiled here from its source with Debian's Inform 6 compiler (installed when missing, as
root on Debian; elsewhere the tests that need it skip, saying how to get it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.support.debian import install
from tests.support.paths import ROOT

SOURCE = ROOT / "tests" / "support" / "games" / "lantern.inf"
# Its whole game: the key (2 points), north, the lantern (3 points), and it is won.
WALKTHROUGH = ["take key", "north", "take lantern"]
MAX_POINTS = 5


def compile_lantern(folder: Path) -> Path:
    """The story file, compiled into `folder`."""
    if shutil.which("inform6") is None:
        install(["inform6-compiler"])
    story = folder / "lantern.z3"
    done = subprocess.run(
        ["inform6", "-v3", str(SOURCE), str(story)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and story.is_file(), done.stdout + done.stderr
    return story
