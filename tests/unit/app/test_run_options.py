"""One builder makes a run's options (issue 68): `run_options` in builders/settings.py is the
only place in the package that makes a `RunOptions`, and the same run asked of `zork-mcp`, of
a sweep and of an Inspect task gets the same options, but for how each spells MCP's switches
and what it leaves to the pyproject."""

from __future__ import annotations

import ast
from dataclasses import replace

import pytest

from tests.support.paths import ROOT
from zork_mcp.app.cli import options_from, parser
from zork_mcp.app.sweep.episode import episode_options
from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.episode.history import HistoryMode
from zork_mcp.domain.servers.config_advice import CLI_SWITCHES
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.episodes import Cell, EpisodeSpec, EpisodeTask, McpConfigFile, ModelSpec

PACKAGE = ROOT / "src" / "zork_mcp"
BUILDER = PACKAGE / "builders" / "settings.py"


def makers_of_run_options() -> list[str]:
    """Every module of the package, but the builder's, that calls `RunOptions(...)`."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path == BUILDER:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "RunOptions":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_only_the_builder_makes_a_runs_options():
    assert makers_of_run_options() == []


def cli_options(*flags: str):
    return options_from(parser().parse_args([*flags, "--plain", "--episode-id", "e"]))


def test_a_sweeps_episode_gets_the_options_the_cli_gives_the_same_run(tmp_path):
    model = ModelSpec(parse_model("local:m"), "http://127.0.0.1:9/v1")
    cell = Cell(model, McpConfigFile("servers.json"), HistoryMode.STATE, "zork2")
    spec = EpisodeSpec("s", cell, 0, 13, 30)
    task = EpisodeTask(spec, tmp_path, tmp_path / "pyproject.toml", ProjectSettings())
    swept = episode_options(task)
    cli = cli_options(
        "--provider", "local", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
        "--mcp-config", "servers.json", "--mcp", "--history", "state", "--game", "zork2",
        "--seed", "13", "--max-turns", "30", "--config", str(tmp_path / "pyproject.toml"),
        "--log-dir", str(tmp_path),
    )  # fmt: skip
    assert replace(swept, episode_id="e", mcp_switches=CLI_SWITCHES, budget=None) == cli
    assert swept.mcp_switches.on == "--mcp on", "a sweep's advice is in its own flags"


def test_an_inspect_sample_gets_the_options_the_cli_gives_the_same_run(tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import get_model

    from zork_mcp.inspect.episode import EpisodeParameters

    parameters = EpisodeParameters(max_turns=30, mcp_config="servers.json", history="state",
                                   config=str(tmp_path / "pyproject.toml"))  # fmt: skip
    sampled = parameters.run_options(
        get_model("mockllm/model"), game="zork2", seed=13, log_dir=tmp_path, episode_id="e"
    )
    cli = cli_options(
        "--provider", "openai", "--model", "mockllm/model", "--mcp-config", "servers.json",
        "--mcp", "--history", "state", "--game", "zork2", "--seed", "13", "--max-turns", "30",
        "--config", str(tmp_path / "pyproject.toml"), "--log-dir", str(tmp_path),
    )  # fmt: skip
    assert replace(sampled, mcp_switches=CLI_SWITCHES) == cli
    assert sampled.mcp_switches.off == "-T mcp_config=off"
