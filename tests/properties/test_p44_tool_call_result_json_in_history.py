import json

from hypothesis import given

from tests.support.scripts import play, scripts
from zork_mcp.domain.llm.messages import ToolResultMessage, to_openai_dict


@given(scripts)
def test_p44_tool_call_result_json_in_history(script):
    """Property 44: ToolCallResult JSON in History

    *For any* ToolCallResult added to message history, it should be JSON-serialized.

    Validates: Requirements 11.5

    The history keeps the ToolCallResult itself; the text a tool message carries (every
    adapter sends `result.to_json()`, as the OpenAI-format dict shows) is its JSON.
    """
    outcome = play(script).outcome
    records = {record.call_id: record for record in outcome.tool_chain}
    tool_messages = [m for m in outcome.messages if isinstance(m, ToolResultMessage)]
    assert len(tool_messages) == len(records)
    for message in tool_messages:
        assert message.result is records[message.tool_call_id].result
        content = to_openai_dict(message)["content"]
        assert isinstance(content, str)
        assert json.loads(content) == records[message.tool_call_id].result.to_dict()
