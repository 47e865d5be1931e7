"""`zork-mcp-inspect` (`python -m zork_mcp.inspect`), run as a user runs it (issue 67): it is
`inspect eval zork_mcp/zork` with the options given, and its exit status says whether the task
succeeded, where Inspect's own `inspect eval` exits 0 either way (its CLI: "eval() ... report
True like their exit codes: per-task outcomes live in the logs statuses"). The model is Inspect's
`openai/` API against our local OpenAI peer, so the run needs no key and no network."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")
pytest.importorskip("openai")

from tests.support.llm_peers import peer_for
from tests.support.walkthrough import WALKTHROUGH
from zork_mcp.adapters.llm.fake import action_reply

pytestmark = pytest.mark.slow  # Inspect's CLI, real Jericho
KEY = "sk-test-0123456789"


def inspect_env(url: str) -> dict[str, str]:
    """This environment without any OpenAI or Anthropic setting, Inspect's `openai/` API
    pointed at the peer."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}
    return {**kept, "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": KEY}


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def logs_in(folder: Path):
    from inspect_ai.log import read_eval_log

    return [read_eval_log(str(path)) for path in sorted(folder.glob("*.eval"))]


def test_a_task_that_plays_exits_0_and_one_that_fails_exits_1_naming_its_log(tmp_path, zork_game):
    commands = WALKTHROUGH[:2]
    peer = peer_for("openai", [action_reply(c) for c in commands], [], api_key=KEY)
    common = ["--model", "openai/gpt-4o", "-T", f"max_turns={len(commands)}",
              "-T", f"game={zork_game}", "--display", "none"]  # fmt: skip
    command = [sys.executable, "-m", "zork_mcp.inspect"]
    with peer.serve() as url:
        env = inspect_env(url)
        played = run([*command, *common, "-T", "mcp_config=off", "--log-dir", "ok"], tmp_path, env)
        failed = run([*command, *common, "-T", "mcp_config=none.json", "--log-dir", "bad"],
                     tmp_path, env)  # fmt: skip
    assert played.returncode == 0, played.stderr[-3000:]
    [log] = logs_in(tmp_path / "ok")
    assert log.status == "success" and len(peer.requests) == len(commands)
    assert failed.returncode == 1, failed.stderr[-3000:]
    [log] = logs_in(tmp_path / "bad")
    assert log.status == "error"
    said = failed.stderr.splitlines()[-1]
    assert said.startswith("zork-mcp-inspect: the task zork_mcp/zork ended error: ")
    assert "none.json" in said and said.endswith(f"(its log: {log.location})")


def test_an_option_inspect_does_not_know_is_its_usage_error(tmp_path):
    done = run(
        [sys.executable, "-m", "zork_mcp.inspect", "--no-such-option"], tmp_path, {**os.environ}
    )
    assert done.returncode == 2 and "No such option" in done.stderr
