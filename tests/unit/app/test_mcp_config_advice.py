"""What a run says when its MCP config is missing or empty (issue 67): the advice names
what exists and what the entry point it was run from takes (`zork-mcp`'s flags, a sweep's
`--mcp`, an Inspect task's `-T mcp_config`), never a pyproject there is not, and arrives
whole on the terminal (a table name in brackets is no markup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.projects import write_project
from zork_mcp.builders.providers import parse_model
from zork_mcp.builders.settings import RunOptions, load_settings, mcp_config, project_settings
from zork_mcp.domain.errors import MCPConfigError

LOCAL = ["--model", "local:m", "--base-url", "http://127.0.0.1:9/v1", "--max-turns", "1"]


def refusal(options: RunOptions) -> str:
    with pytest.raises(MCPConfigError) as raised:
        mcp_config(options, load_settings(options, project_settings(options.config)))
    return str(raised.value)


def test_a_sweep_prints_the_table_its_advice_names(tmp_path, capsys):
    from zork_mcp.app.cli import main

    pyproject = write_project(tmp_path, enabled=True)
    code = main(["eval", *LOCAL, "--episodes", "1", "--dry-run", "--config", str(pyproject),
                 "--results", str(tmp_path / "r.sqlite")])  # fmt: skip
    said = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "config file was not found" in said
    assert f"config_file of [tool.zorkgpt.mcp] in {pyproject}" in said
    assert "play without MCP: --mcp off." in said, "a sweep's cells say on or off, not its table"


def test_the_pyprojects_own_switch_is_advised_where_the_pyproject_turned_mcp_on(tmp_path):
    pyproject = write_project(tmp_path, enabled=True)
    said = refusal(RunOptions(config=pyproject))
    assert f"enabled = true in [tool.zorkgpt.mcp] of {pyproject}" in said
    assert f"create {tmp_path / 'mcp_config.json'}" in said
    assert "--mcp-config PATH" in said and "--no-mcp" in said
    assert f"enabled = false in [tool.zorkgpt.mcp] of {pyproject}" in said


def test_outside_a_project_the_advice_is_mcp_config_and_no_pyproject(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    said = refusal(RunOptions(mcp=True))
    assert "MCP is on (--mcp)" in said and "--mcp-config PATH" in said and "--no-mcp" in said
    assert "there is no pyproject.toml here" in said
    assert "enabled = false" not in said and "project root" not in said
    assert '"zork_mcp.servers.reasoning"' in said, "an example that works anywhere"


def test_a_config_named_on_the_command_line_that_is_missing_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / "servers.json"
    said = refusal(RunOptions(mcp=True, mcp_config=missing))
    assert f"{missing} (named by --mcp-config PATH)" in said
    assert "--no-mcp" in said and "pyproject" not in said


def test_mcp_turned_on_by_the_flag_is_turned_off_by_the_flag(tmp_path):
    pyproject = write_project(tmp_path, enabled=False)
    said = refusal(RunOptions(config=pyproject, mcp=True))
    assert "MCP is on (--mcp)" in said and "enabled = false" not in said


def test_a_sweeps_advice_is_in_its_own_flags(tmp_path, monkeypatch):
    from zork_mcp.app.sweep.episode import episode_options
    from zork_mcp.domain.sweep.episodes import (
        Cell,
        EpisodeSpec,
        EpisodeTask,
        McpMode,
        ModelSpec,
    )

    monkeypatch.chdir(tmp_path)
    cell = Cell(ModelSpec(parse_model("local:m"), None), McpMode.ON)
    config = Path("pyproject.toml")
    task = EpisodeTask(EpisodeSpec("s", cell, 0, 12, 1), tmp_path, config, project_settings(config))
    said = refusal(episode_options(task))
    assert "MCP is on (--mcp on)" in said and "--mcp PATH" in said and "--mcp off" in said
    assert "--mcp-config" not in said and "--no-mcp" not in said


def test_an_inspect_tasks_advice_is_in_its_task_parameters(tmp_path, monkeypatch):
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import get_model

    from zork_mcp.inspect.episode import EpisodeParameters

    monkeypatch.chdir(tmp_path)
    parameters = EpisodeParameters(mcp_config="missing.json")
    options = parameters.run_options(
        get_model("mockllm/model"), game=None, seed=12, log_dir=tmp_path, episode_id="e"
    )
    said = refusal(options)
    assert "missing.json (named by -T mcp_config=PATH)" in said
    assert "-T mcp_config=off" in said and "--no-mcp" not in said


@pytest.mark.parametrize(
    ("options", "advice"),
    [
        (lambda tmp: RunOptions(config=write_project(tmp, enabled=True)), "--no-mcp, or set"),
        (lambda tmp: RunOptions(mcp=True, mcp_config=tmp / "c.json"), "--no-mcp."),
    ],
)
def test_a_config_without_servers_advises_what_turns_mcp_off_here(
    tmp_path, monkeypatch, options, advice
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mcp_config.json").write_text('{"mcpServers": {}}')
    (tmp_path / "c.json").write_text('{"mcpServers": {}}')
    said = refusal(options(tmp_path))
    assert "configures no MCP server" in said and f"play without MCP: {advice}" in said
