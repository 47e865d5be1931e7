from hypothesis import given

from tests.support.scripts import play, scripts
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.loop.batch_policy import CallOutcome

TICK = 0.25  # the test clock advances this much each time it is read


@given(scripts)
def test_p29_tool_result_logging(script):
    """Property 29: Tool Result Logging

    *For any* tool call completion, the system should log the result type, length, and duration.

    Validates: Requirements 7.2
    """
    played = play(script)
    completed = [
        r
        for r in played.outcome.tool_chain
        if r.outcome in (CallOutcome.SUCCEEDED, CallOutcome.TOOL_ERROR)
    ]
    logged = played.telemetry.of_type(EventType.MCP_TOOL_RESULT)
    assert len(logged) == len(completed)
    for event, record in zip(logged, completed, strict=True):
        content = record.result.content
        assert event.fields["tool_name"] == record.tool_name
        assert event.fields["result_type"] == type(content).__name__
        assert event.fields["result_length"] == len(str(content))
        assert event.fields["duration_ms"] == TICK * 1000
        assert event.fields["is_error"] == (record.outcome is CallOutcome.TOOL_ERROR)
