import copy

from hypothesis import given

from tests.support.strategies import input_schemas, server_names, tool_names
from zork_mcp.domain.tools.tool_schema import ToolSpec, openai_function_tool, tool_definition


@given(server_names, tool_names, input_schemas())
def test_p36_input_schema_to_parameters_mapping(server, tool, schema):
    """Property 36: InputSchema to Parameters Mapping

    *For any* MCP tool schema translation, the inputSchema field should be mapped to the
    parameters field in OpenAI format.

    Validates: Requirements 8.4
    """
    original = copy.deepcopy(schema)
    definition = tool_definition(ToolSpec(server, tool, "", schema))
    parameters = definition.parameters
    assert openai_function_tool(definition)["function"]["parameters"] == parameters
    assert schema == original, "the MCP schema is not changed"
    assert {k: v for k, v in parameters.items() if k in schema} == schema
    assert parameters["type"] == schema.get("type", "object") == "object"
    assert parameters["properties"] == schema.get("properties", {})
    assert set(parameters) - set(schema) <= {"type", "properties"}
