from hypothesis import given
from hypothesis import strategies as st

from tests.support.pyproject_tables import pyproject, values
from zork_mcp.domain.settings import MCPSettings, parse_mcp_settings

DEFAULTS = {
    "max_tool_iterations": 20,
    "tool_call_timeout_seconds": 30,
    "server_startup_timeout_seconds": 10,
    "config_file": "mcp_config.json",
    "force_tool_support": False,
    "enabled": False,
}


@given(values, st.booleans())
def test_p45_configuration_defaults(table, with_table):
    """Property 45: Configuration Defaults

    *For any* GameConfiguration loaded without explicit MCP values, the system should apply the
    correct default values (max_tool_iterations=20, tool_call_timeout_seconds=30,
    server_startup_timeout_seconds=10, config_file="mcp_config.json", force_tool_support=False).

    Validates: Requirements 13.1, 13.2, 13.3, 13.4, 13.5
    """
    text = pyproject(table, "", "") if with_table else '[project]\nname = "x"\n'
    settings = parse_mcp_settings(text, source="pyproject.toml")
    given_keys = set(table) if with_table else set()
    for key, default in DEFAULTS.items():
        if key not in given_keys:
            assert getattr(settings, key) == default
    assert MCPSettings() == parse_mcp_settings("", source="empty")
