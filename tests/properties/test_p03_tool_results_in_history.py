import json

from hypothesis import given

from tests.support.scripts import play, scripts
from zork_mcp.domain.llm.messages import ToolResultMessage
from zork_mcp.domain.loop.batch_policy import CallOutcome


@given(scripts)
def test_p03_tool_results_appear_in_message_history(script):
    """Property 3: Tool Results Appear in Message History

    *For any* successful tool call, the tool result should appear in the message history before
    the next LLM call.

    Validates: Requirements 1.3, 5.4
    """
    played = play(script)
    answered_by: dict[str, int] = {}
    for index, response in enumerate(played.model.responses):
        for call in response.tool_calls or ():
            answered_by[call.id] = index + 1
    for record in played.outcome.tool_chain:
        if record.outcome is not CallOutcome.SUCCEEDED:
            continue
        next_request = played.requests[answered_by[record.call_id]]
        in_history = [
            m
            for m in next_request.messages
            if isinstance(m, ToolResultMessage) and m.tool_call_id == record.call_id
        ]
        assert len(in_history) == 1
        sent = played.model.sent[record.call_id]
        arguments = json.loads(sent.argument_text(record.call_id).strip() or "{}")
        assert json.loads(in_history[0].result.to_json()) == {"content": arguments}
