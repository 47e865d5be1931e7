import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, server_names, tool_names
from zork_mcp.domain.tools.tool_schema import ToolSpec, canonical_name, tool_definition


@given(server_names, tool_names)
def test_p34_tool_name_format(server, tool):
    """Property 34: Tool Name Format

    *For any* translated tool name, it should follow the format {server_name}.{tool_name}.

    Validates: Requirements 8.2
    """
    name = canonical_name(server, tool)
    assert name == f"{server}.{tool}"
    assert name.split(".", 1)[0] == server
    assert tool_definition(ToolSpec(server, tool)).name == name


@given(st.text(TEXT, max_size=10), st.text(TEXT, max_size=10), tool_names)
def test_p34_a_server_name_with_a_dot_is_refused(left, right, tool):
    with pytest.raises(ValueError, match="must be non-empty and contain no"):
        canonical_name(f"{left}.{right}", tool)
