import re
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from tests.support.openai_format import assert_openai_tool
from tests.support.provider_exchange import exchange, wire_tools
from tests.support.strategies import input_schemas, server_names, tool_names
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.domain.llm.messages import LLMRequest, ToolChoice, initial_messages
from zork_mcp.domain.tools.tool_schema import ToolSpec, openai_function_tool, tool_definitions

OPENAI_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
specs = st.lists(
    st.builds(ToolSpec, server_names, tool_names, st.text(max_size=20), input_schemas()),
    min_size=1,
    max_size=6,
    unique_by=lambda spec: spec.canonical_name,
)


@given(specs)
def test_p10_tool_schemas_in_openai_format(tools):
    """Property 10: Tool Schemas in OpenAI Format

    *For any* request with tools parameter, the tool schemas should be in valid OpenAI format.

    Validates: Requirements 4.1
    """
    definitions = tool_definitions(tools)
    request = LLMRequest(tuple(initial_messages("s", "u")), definitions, ToolChoice.AUTO)
    _, peer = exchange("openai", request, [action_reply("look")])
    sent = wire_tools(peer)
    assert len(sent) == len(tools)
    for tool, spec, definition in zip(sent, tools, definitions, strict=True):
        assert_openai_tool(tool)
        assert OPENAI_NAME.fullmatch(tool["function"]["name"])
        assert tool["function"]["parameters"]["properties"] == spec.input_schema.get(
            "properties", {}
        )
        weighed = openai_function_tool(replace(definition, name=tool["function"]["name"]))
        assert tool == weighed, "the domain weighs a definition as the adapter sends it"
    assert len({tool["function"]["name"] for tool in sent}) == len(sent)
    assert peer.requests[-1]["tool_choice"] == "auto" and "response_format" not in peer.requests[-1]
