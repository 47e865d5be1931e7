import json

from hypothesis import given

from tests.support.scripts import Kind, play, scripts, tool_results


@given(scripts)
def test_p16_tool_execution_via_the_tool_session(script):
    """Property 16: Tool Execution via MCPManager

    *For any* tool_call received from the LLM, the agent should execute it via
    MCPManager.call_tool().

    Validates: Requirements 5.1
    """
    played = play(script)
    results = tool_results(played)
    sent = played.model.sent
    due = [
        call_id
        for call_id, call in sent.items()
        if call.kind.executes and not str(results[call_id].get("error", "")).startswith("skipped")
    ]
    traced = [call_id for call_id in due if sent[call_id].kind is not Kind.BLANK]
    executed = played.executed_markers
    assert [marker for marker in executed if marker] == traced
    assert executed.count("") == len(due) - len(traced)
    for log in played.server.calls:
        marker = log.arguments.get("marker")
        if marker:
            assert log.name == sent[marker].name
            assert dict(log.arguments) == json.loads(sent[marker].argument_text(marker))
