from hypothesis import given

from tests.support.scripts import TIMEOUT, Kind, play, scripts, tool_results
from zork_mcp.domain.facts.events import EventType


@given(scripts)
def test_p25_timeout_message_in_history(script):
    """Property 25: Timeout Message in History

    *For any* tool call timeout, the agent should add a timeout message to the message history.

    Validates: Requirements 6.6
    """
    played = play(script)
    results = tool_results(played)
    timed_out = [
        cid
        for cid, call in played.model.sent.items()
        if call.kind is Kind.TIMEOUT
        and not str(results[cid].get("error", "")).startswith("skipped")
    ]
    for call_id in timed_out:
        assert results[call_id]["error"] == f"Tool call box.hang timed out after {TIMEOUT:g}s"
    events = played.telemetry.of_type(EventType.MCP_TOOL_TIMEOUT)
    assert len(events) == len(timed_out)
    assert all(e.fields["timeout_seconds"] == TIMEOUT for e in events)
