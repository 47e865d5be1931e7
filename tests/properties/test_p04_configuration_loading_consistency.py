from hypothesis import given
from hypothesis import strategies as st

from tests.support.pyproject_tables import pyproject, values
from zork_mcp.domain.settings import parse_mcp_settings


@given(
    values,
    st.sampled_from(["", '[project]\nname = "x"\n', "[tool.zorkgpt]\nepisodes = 3\n"]),
    st.sampled_from(["", "[tool.ruff]\nline-length = 100\n"]),
)
def test_p04_configuration_loading_consistency(table, before, after):
    """Property 4: Configuration Loading Consistency

    *For any* valid pyproject.toml with MCP settings, the GameConfiguration should load those
    settings with values matching the file.

    Validates: Requirements 2.4
    """
    settings = parse_mcp_settings(pyproject(table, before, after), source="pyproject.toml")
    for key, value in table.items():
        assert getattr(settings, key) == value
