"""A new user's install: the README's one `pip install -e .` gives every main command,
sweeps included (issue 46), with no extra to remember; a wheel carries the games (issue 65).

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

from tests.support.llm_peers import peer_for
from tests.support.paths import ROOT
from tests.support.walkthrough import walkthrough
from zork_mcp.adapters.llm.fake import action_reply

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


def test_a_wheel_installed_outside_the_repository_plays_zork_ii_from_the_package(tmp_path):
    """Not editable, run from an empty folder with no ../shared: the story files, their
    licences and the walkthroughs travel in the wheel, and `--game zork2` plays from it."""
    uv = Path(sys.executable).parent / "uv"
    dist, venv, empty = tmp_path / "dist", tmp_path / "venv", tmp_path / "empty"
    empty.mkdir()
    build = [str(uv), "build", "--wheel", "-q", "-o", str(dist), str(ROOT)]
    if subprocess.run([*build, "--offline"], capture_output=True, timeout=600).returncode:
        subprocess.run(build, check=True, capture_output=True, timeout=600)
    [wheel] = dist.glob("*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = [str(uv), "pip", "install", "-q", "--python", str(venv), str(wheel)]
    if subprocess.run([*install, "--offline"], capture_output=True, timeout=600).returncode:
        subprocess.run(install, check=True, capture_output=True, timeout=600)
    where = "from zork_mcp.adapters.game.jericho import packaged_story as p; print(p('zork2'))"
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", where], capture_output=True, text=True, cwd=empty
    )
    assert Path(found.stdout.strip()).is_relative_to(venv), found.stdout + found.stderr
    assert (Path(found.stdout.strip()).parent / "LICENSE-zork2.txt").is_file()
    commands = walkthrough("zork2")[:4]
    peer = peer_for("openai", [action_reply(c) for c in commands], [], api_key=None)
    with peer.serve() as url:
        played = subprocess.run(
            [str(venv / "bin" / "zork-mcp"), "--game", "zork2", "--provider", "local",
             "--base-url", f"{url}/v1", "--model", "m", "--max-turns", "4", "--plain",
             "--log-dir", str(empty / "logs"), "--episode-id", "e"],
            capture_output=True, text=True, timeout=120, cwd=empty,
        )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "playing Zork II," in peer.requests[0]["messages"][0]["content"]
    assert "Inside the Barrow" in played.stdout and len(peer.requests) == 4
