import pytest
from hypothesis import given, settings

from tests.support.langfuse_capture import LangfuseCapture
from tests.support.scripts import play, scripts
from zork_mcp.adapters.telemetry.langfuse import LangfuseTelemetry
from zork_mcp.domain.loop.batch_policy import CallOutcome

REACHED_THE_SERVER = {
    CallOutcome.SUCCEEDED,
    CallOutcome.TOOL_ERROR,
    CallOutcome.TIMED_OUT,
    CallOutcome.SESSION_BROKEN,
}


@pytest.fixture(scope="module")
def langfuse():
    return LangfuseCapture()


@settings(max_examples=100)
@given(script=scripts)
def test_p31_langfuse_tool_call_spans(langfuse, script):
    """Property 31: Langfuse Tool Call Spans

    *For any* tool call when Langfuse is enabled, a separate Langfuse span should be created.

    Validates: Requirements 7.4
    """
    langfuse.spans()
    played = play(script, telemetry=LangfuseTelemetry(langfuse.client))
    tool_spans = [s.name for s in langfuse.spans() if s.name.startswith("mcp-tool-")]
    executed = [r for r in played.outcome.tool_chain if r.outcome in REACHED_THE_SERVER]
    assert sorted(tool_spans) == sorted(f"mcp-tool-{r.tool_name}" for r in executed)
