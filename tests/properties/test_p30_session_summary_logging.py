from hypothesis import given

from tests.support.scripts import offered_requests, play, scripts, tool_results
from zork_mcp.domain.facts.events import EventType


@given(scripts)
def test_p30_session_summary_logging(script):
    """Property 30: Session Summary Logging

    *For any* tool-calling session completion, the system should log the total iterations and
    tools used.

    Validates: Requirements 7.3
    """
    played = play(script)
    (summary,) = played.telemetry.of_type(EventType.MCP_SESSION_COMPLETE)
    results = tool_results(played)
    attempted = {
        call.name
        for call_id, call in played.model.sent.items()
        if not str(results[call_id].get("error", "")).startswith("skipped")
    }
    assert summary.fields["iterations"] == len(offered_requests(played))
    assert summary.fields["tool_calls_count"] == len(played.model.sent)
    assert summary.fields["tools_used"] == sorted(attempted)
    assert summary.fields["final_action"] == played.outcome.answer.response.action
