"""A project directory for the CLI: a pyproject with a [tool.zorkgpt.mcp] table and,
when servers are given, the mcp_config.json beside it; and an episode played in it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.llm_peers import ProviderPeer, peer_for


def write_project(
    directory: Path, servers: Mapping[str, Any] | None = None, **mcp: bool | float | str
) -> Path:
    """Write the files; return the pyproject's path. `mcp` are the table's keys, in order."""
    if servers is not None:
        config = {"mcpServers": dict(servers)}
        (directory / "mcp_config.json").write_text(json.dumps(config))
    lines = [f"{key} = {_toml(value)}\n" for key, value in mcp.items()]
    pyproject = directory / "pyproject.toml"
    pyproject.write_text("[tool.zorkgpt.mcp]\n" + "".join(lines))
    return pyproject


def measured_project(directory: Path) -> Path:
    """A project with MCP on and the servers benchmarks/prompt_size.py measures (reasoning
    and memory), as the estimate's and the budget's end-to-end tests play it."""
    from benchmarks.prompt_size import SERVERS  # the benchmark imports the app: only here

    return write_project(directory, SERVERS, enabled=True)


def _toml(value: bool | float | str) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return json.dumps(value)


def play_episode(
    directory: Path, servers: Mapping[str, Any], replies: list, tools: list[str], turns: int, **mcp
) -> tuple[int, list[dict[str, Any]], ProviderPeer]:
    """The CLI's `main()` for `turns` turns against a local OpenAI peer scripted with
    `replies`: its exit code, its events and the peer (its requests, what it refused)."""
    from zork_mcp.app.cli import main

    pyproject = write_project(directory, servers, enabled=True, background_spare=False, **mcp)
    peer = peer_for("openai", replies, tools, api_key=None)
    with peer.serve() as url:
        code = main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "m",
             "--max-turns", str(turns), "--plain", "--config", str(pyproject),
             "--log-dir", str(directory), "--episode-id", "e"]
        )  # fmt: skip
    lines = (directory / "e" / "events.jsonl").read_text().splitlines()
    return code, [json.loads(line) for line in lines], peer


def app_process(url: str, project: Path, game: Path, logs: Path, *more: str) -> subprocess.Popen:
    """`python -m zork_mcp.app` on episode `e` against the local peer at `url`, in a process
    group of its own (so a test can kill -9 it whole); its stderr piped."""
    command = [
        sys.executable, "-m", "zork_mcp.app", "--provider", "local", "--base-url", f"{url}/v1",
        "--model", "m", "--game", str(game), "--plain", "--config", str(project),
        "--log-dir", str(logs), "--episode-id", "e", *more,
    ]  # fmt: skip
    return subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
