"""What a run says when its MCP config is missing or empty (issue 67): the advice names
what exists and what the entry point it was run from takes (`zork-mcp`'s flags, a sweep's
`--mcp`, an Inspect task's `-T mcp_config`), never a pyproject there is not, and arrives
whole on the terminal (a table name in brackets is no markup)."""

from __future__ import annotations

import pytest

from tests.support.projects import write_project
from zork_mcp.builders.settings import RunOptions, load_settings, mcp_config
from zork_mcp.domain.errors import MCPConfigError

LOCAL = ["--model", "local:m", "--base-url", "http://127.0.0.1:9/v1", "--max-turns", "1"]


def refusal(options: RunOptions) -> str:
    with pytest.raises(MCPConfigError) as raised:
        mcp_config(options, load_settings(options))
    return str(raised.value)


def test_a_sweep_prints_the_table_its_advice_names(tmp_path, capsys):
    from zork_mcp.app.cli import main

    pyproject = write_project(tmp_path, enabled=True)
    code = main(["eval", *LOCAL, "--episodes", "1", "--dry-run", "--config", str(pyproject),
                 "--results", str(tmp_path / "r.sqlite")])  # fmt: skip
    said = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "config file was not found" in said
    assert "set enabled = false in [tool.zorkgpt.mcp] of" in said
