import json

from hypothesis import given

from tests.support.scripts import play, scripts


@given(scripts)
def test_p44_tool_call_result_json_in_history(script):
    """Property 44: ToolCallResult JSON in History

    *For any* ToolCallResult added to message history, it should be JSON-serialized.

    Validates: Requirements 11.5
    """
    outcome = play(script).outcome
    records = {record.call_id: record for record in outcome.tool_chain}
    tool_messages = [m for m in outcome.messages if m["role"] == "tool"]
    assert len(tool_messages) == len(records)
    for message in tool_messages:
        assert isinstance(message["content"], str)
        decoded = json.loads(message["content"])
        assert decoded == records[message["tool_call_id"]].result.to_dict()
