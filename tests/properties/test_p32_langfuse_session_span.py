import pytest
from hypothesis import given, settings

from tests.support.langfuse_capture import LangfuseCapture
from tests.support.scripts import play, scripts
from zork_mcp.adapters.telemetry.langfuse import LangfuseTelemetry
from zork_mcp.domain.facts.events import LLM_GENERATION, SESSION_SPAN


@pytest.fixture(scope="module")
def langfuse():
    return LangfuseCapture()


@settings(max_examples=100)
@given(script=scripts)
def test_p32_langfuse_session_span(langfuse, script):
    """Property 32: Langfuse Session Span

    *For any* tool-calling session when Langfuse is enabled, a session-level Langfuse span
    should be created.

    Validates: Requirements 7.5
    """
    langfuse.spans()
    played = play(script, telemetry=LangfuseTelemetry(langfuse.client))
    spans = langfuse.spans()
    (session,) = [s for s in spans if s.name == SESSION_SPAN]
    by_id = {s.context.span_id: s for s in spans}

    def under_session(span) -> bool:
        while span.parent is not None:
            if span.parent.span_id == session.context.span_id:
                return True
            span = by_id[span.parent.span_id]
        return False

    others = [s for s in spans if s is not session]
    assert others and all(under_session(s) for s in others)
    assert [s.name for s in others].count(LLM_GENERATION) == len(played.requests)
    assert session.end_time is not None
