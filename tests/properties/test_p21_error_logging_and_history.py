from hypothesis import given

from tests.support.scripts import Kind, play, scripts, tool_results
from zork_mcp.domain.facts.events import EventType, Level

FAILURE_EVENTS = {
    Kind.TOOL_ERROR: EventType.MCP_TOOL_ERROR,
    Kind.BAD_JSON: EventType.MCP_TOOL_ERROR,
    Kind.NOT_OBJECT: EventType.MCP_TOOL_ERROR,
    Kind.UNKNOWN: EventType.MCP_TOOL_ERROR,
    Kind.TIMEOUT: EventType.MCP_TOOL_TIMEOUT,
    Kind.CRASH: EventType.MCP_SESSION_BROKEN,
}


@given(scripts)
def test_p21_error_logging_and_history(script):
    """Property 21: Error Logging and History

    *For any* tool call that fails, the agent should log the error and add an error message to
    the message history.

    Validates: Requirements 6.2
    """
    played = play(script)
    results = tool_results(played)
    warnings = [e for e in played.telemetry.events if e.level is Level.WARNING]
    for call_id, call in played.model.sent.items():
        answer = results[call_id]
        if call.kind not in FAILURE_EVENTS or str(answer.get("error", "")).startswith("skipped"):
            continue
        assert isinstance(answer["error"], str) and answer["error"]
        logged = [
            e
            for e in warnings
            if e.type == FAILURE_EVENTS[call.kind] and e.fields["tool_name"] == call.name
        ]
        assert logged, f"no {FAILURE_EVENTS[call.kind]} for {call.kind}"
        if call.kind is not Kind.TIMEOUT:
            assert any(e.fields.get("error") == answer["error"] for e in logged)
