"""Settings and mcp_config.json parsing: defaults and actionable errors (2.2-2.6, 13)."""

from __future__ import annotations

import pytest

from zork_mcp.domain.errors import ConfigurationError, MCPConfigError, MCPError
from zork_mcp.domain.servers.config_advice import McpConfigOrigin, missing_config_error
from zork_mcp.domain.servers.server_config import parse_mcp_config
from zork_mcp.domain.servers.startup_timeout import startup_timeout
from zork_mcp.domain.settings import MCPSettings, parse_mcp_settings


def test_a_pyproject_without_the_table_gets_every_default():
    settings = parse_mcp_settings("[project]\nname = 'x'\n", source="pyproject.toml")
    assert settings == MCPSettings()
    assert (settings.enabled, settings.config_file, settings.max_tool_iterations) == (
        False,
        "mcp_config.json",
        20,
    )
    assert settings.tool_call_timeout_seconds == 30
    assert settings.server_startup_timeout_seconds == 10
    assert settings.force_tool_support is False
    assert settings.server_start == "auto"


def test_values_in_the_table_are_loaded():
    text = """
[tool.zorkgpt.mcp]
enabled = true
config_file = "servers.json"
max_tool_iterations = 3
tool_call_timeout_seconds = 2.5
"""
    settings = parse_mcp_settings(text, source="p.toml")
    assert settings.enabled and settings.config_file == "servers.json"
    assert settings.max_tool_iterations == 3 and settings.tool_call_timeout_seconds == 2.5
    assert settings.server_startup_timeout_seconds == 10


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("max_tool_iterations = 0", "max_tool_iterations"),
        ("tool_call_timeout_seconds = 'soon'", "tool_call_timeout_seconds"),
        ("max_tool_iteration = 5", "max_tool_iteration"),
        ("server_start = 'clone'", "server_start"),
    ],
)
def test_bad_settings_name_the_key_and_the_file(body, fragment):
    with pytest.raises(ConfigurationError) as caught:
        parse_mcp_settings(f"[tool.zorkgpt.mcp]\n{body}\n", source="my/pyproject.toml")
    assert fragment in str(caught.value) and "my/pyproject.toml" in str(caught.value)


def test_invalid_toml_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="not valid TOML"):
        parse_mcp_settings("[tool.zorkgpt.mcp\n", source="p.toml")


def test_every_server_is_used_in_config_order_unless_some_are_picked():
    config = parse_mcp_config(
        '{"mcpServers": {"b": {"command": "x"}, "a": {"command": "y", "args": ["-v"],'
        ' "env": {"K": "V"}}}}',
        source="mcp.json",
    )
    assert list(config.chosen(None, source="s")) == ["b", "a"]
    assert list(config.chosen(("a",), source="s")) == ["a"]
    assert config.mcpServers["b"].command == "x" and config.mcpServers["b"].args == ()
    assert config.mcpServers["a"].env == {"K": "V"}
    assert config.mcpServers["a"].command_line() == "y -v"
    for picked in [(), ("c",)]:
        with pytest.raises(MCPConfigError, match="picks the servers"):
            config.chosen(picked, source="s")


def test_invalid_json_says_where():
    with pytest.raises(MCPConfigError) as caught:
        parse_mcp_config('{\n  "mcpServers": {,}\n}', source="mcp_config.json")
    assert "line 2, column 18" in str(caught.value) and "mcp_config.json" in str(caught.value)
    assert isinstance(caught.value, MCPError) and isinstance(caught.value, ConfigurationError)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"servers": {}}', "mcpServers"),
        ('{"mcpServers": {"s": {"args": []}}}', "mcpServers.s.stdio.command"),
        ('{"mcpServers": {"s": {"command": "x", "args": "-y"}}}', "mcpServers.s.stdio.args"),
        ('{"mcpServers": {"s.t": {"command": "x"}}}', "must be non-empty and contain no '.'"),
        ('{"mcpServers": {}}', "configures no MCP server"),
        ("[]", "(top level)"),
    ],
)
def test_wrong_shapes_name_the_field(text, fragment):
    with pytest.raises(MCPConfigError) as caught:
        parse_mcp_config(text, source="mcp_config.json")
    assert fragment in str(caught.value)


def test_a_missing_file_names_the_path_and_both_fixes():
    origin = McpConfigOrigin(pyproject="/srv/pyproject.toml")
    message = str(missing_config_error("/srv/mcp_config.json", origin))
    assert "/srv/mcp_config.json" in message
    assert "create" in message and "enabled = false" in message


def test_a_package_launcher_has_a_longer_start_unless_the_pyproject_sets_one():
    """Issue 55: a first `npx` run downloads its server; 10 s was only just enough."""
    unset = parse_mcp_settings("[tool.zorkgpt.mcp]\nenabled = true\n", source="p.toml")
    chosen = parse_mcp_settings(
        "[tool.zorkgpt.mcp]\nserver_startup_timeout_seconds = 10\n", source="p.toml"
    )
    assert (unset.chosen_startup_timeout, chosen.chosen_startup_timeout) == (None, 10)
    assert startup_timeout(None, "npx", ("-y", "@modelcontextprotocol/server-memory")) == 60
    assert startup_timeout(None, "/usr/local/bin/uvx", ("mcp-server-fetch",)) == 60
    assert startup_timeout(None, "npm", ("exec", "server")) == 60
    assert startup_timeout(None, "npm", ("run", "server")) == 10
    assert startup_timeout(None, "python", ("-m", "zork_mcp.servers.reasoning")) == 10
    assert startup_timeout(None) == 10  # a remote server: already running
    assert startup_timeout(10, "npx", ("-y", "x")) == 10
