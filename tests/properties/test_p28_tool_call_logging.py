import json
import tempfile
from pathlib import Path

from hypothesis import given

from tests.support.scripts import offered_requests, play, scripts
from zork_mcp.adapters.telemetry.jsonl import JsonlTelemetry
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.loop.batch_policy import CallOutcome


def iteration_of(played) -> dict[str, int]:
    """call id -> the number of the tool-offering LLM call that asked for it."""
    numbers, offered = {}, offered_requests(played)
    for response, request in zip(played.model.responses, played.requests, strict=True):
        for call in response.tool_calls or ():
            numbers[call.id] = offered.index(request) + 1
    return numbers


@given(scripts)
def test_p28_tool_call_logging(script):
    """Property 28: Tool Call Logging

    *For any* tool call, the system should log the tool name, arguments, and iteration number.

    Validates: Requirements 7.1
    """
    with tempfile.TemporaryDirectory() as directory:
        jsonl = JsonlTelemetry(Path(directory), "episode")
        played = play(script, telemetry=jsonl)
        jsonl.close()
        lines = (Path(directory) / "events.jsonl").read_text().splitlines()
    written = [json.loads(line) for line in lines]
    logged = played.telemetry.of_type(EventType.MCP_TOOL_CALL)
    iterations = iteration_of(played)
    raw = {
        call.id: call.function.arguments
        for response in played.model.responses
        for call in response.tool_calls or ()
    }
    made = [r for r in played.outcome.tool_chain if r.outcome is not CallOutcome.SKIPPED]
    assert len(logged) == len(made)
    for event, record in zip(logged, made, strict=True):
        assert event.fields["tool_name"] == record.tool_name
        unparsed = record.outcome is CallOutcome.BAD_ARGUMENTS  # logged as the text it was
        assert event.fields["arguments"] == (raw[record.call_id] if unparsed else record.arguments)
        assert event.fields["iteration"] == iterations[record.call_id] == record.iteration
    in_file = [w for w in written if w["event_type"] == "mcp_tool_call"]
    assert [(w["tool_name"], w["iteration"]) for w in in_file] == [
        (e.fields["tool_name"], e.fields["iteration"]) for e in logged
    ]
