from hypothesis import given
from hypothesis import strategies as st

from tests.support.openai_format import assert_openai_tool, assert_tool_definition
from tests.support.strategies import TEXT, input_schemas, server_names, tool_names
from zork_mcp.domain.tools.tool_schema import ToolSpec, openai_function_tool, tool_definition


@given(server_names, tool_names, st.text(TEXT, max_size=50), input_schemas())
def test_p33_schema_translation_to_openai_format(server, tool, description, schema):
    """Property 33: Schema Translation to OpenAI Format

    *For any* MCP tool schema, the MCPManager should translate it to valid OpenAI format.

    Validates: Requirements 8.1
    """
    translated = tool_definition(ToolSpec(server, tool, description, schema))
    assert_tool_definition(translated)
    assert (translated.name, translated.description) == (f"{server}.{tool}", description)
    assert_openai_tool(openai_function_tool(translated))
