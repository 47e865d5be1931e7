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

import os
import re
import shlex
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


def test_the_inspect_pages_install_runs_its_commands(tmp_path: Path):
    """docs/inspect.md (issue 67): after its `pip install -e '.[inspect]'`, every model API its
    commands name starts (Inspect's openai/ and anthropic/ refused to, without their client
    packages), and its first command plays, against a local OpenAI peer, exiting 0."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    uv = Path(sys.executable).parent / "uv"
    install = [str(uv), "pip", "install", "-q", "--python", str(venv), "-e", f"{ROOT}[inspect]"]
    if subprocess.run([*install, "--offline"], capture_output=True, timeout=600).returncode:
        subprocess.run(install, check=True, capture_output=True, timeout=600)
    page = (ROOT / "docs" / "inspect.md").read_text()
    models = sorted({*re.findall(r"--model (\S+)", page), "anthropic/claude-haiku-5-5"})
    assert "openai/gpt-4o" in models, models
    # the venv's own install alone (not the tests' PYTHONPATH), no key of this machine's
    unset = ("OPENAI", "ANTHROPIC", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if not k.startswith(unset)}
    keys = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "LOCAL_API_KEY": "k",
            "LOCAL_BASE_URL": "http://127.0.0.1:9/v1"}  # fmt: skip
    starts = "import sys; from inspect_ai.model import get_model as m; [m(n) for n in sys.argv[1:]]"
    started = subprocess.run(
        [str(venv / "bin" / "python"), "-c", starts, *models],
        env={**env, **keys}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr[-2000:]
    shown = [line for line in page.splitlines() if line.startswith(".venv/bin/zork-mcp-inspect")]
    argv = shlex.split(shown[0].replace(".venv/bin/", f"{venv}/bin/", 1))
    replies = [action_reply(command) for command in walkthrough("zork1")[:2]]
    peer = peer_for("openai", replies, [], api_key="sk-test-0123456789")
    (tmp_path / "mcp_config.json").write_text((ROOT / "mcp_config.json").read_text())
    with peer.serve() as url:
        played = subprocess.run(
            [*argv, "-T", "max_turns=2", "--display", "none"],
            env={**env, "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "sk-test-0123456789"},
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
    assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:]
    assert len(peer.requests) == 2 and peer.requests[0].get("tools"), "MCP's tools offered"
