"""For any turn, both tracing backends tell the same story the loop lived (issue 18).

Random tool-calling scripts (scripts.py) run through the real decide_action with the real
Langfuse SDK and the real OpenTelemetry SDK beside the in-memory record.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.support.langfuse_capture import LangfuseCapture
from tests.support.scripts import play, scripts
from zork_mcp.adapters.telemetry.fanout import FanoutTelemetry
from zork_mcp.adapters.telemetry.langfuse import LangfuseTelemetry
from zork_mcp.adapters.telemetry.otel import OtelTelemetry
from zork_mcp.adapters.telemetry.trace_semantics import RunIdentity
from zork_mcp.builders.providers import resolve_model
from zork_mcp.domain.loop.batch_policy import CallOutcome

IDENTITY = RunIdentity(resolve_model("openrouter", "openai/gpt-4o-mini"), session_id="ep-p", seed=1)
LEVELS = {
    CallOutcome.SUCCEEDED: None,
    CallOutcome.TOOL_ERROR: "ERROR",
    CallOutcome.SESSION_BROKEN: "ERROR",
    CallOutcome.TIMED_OUT: "WARNING",
}


@pytest.fixture(scope="module")
def backends():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return LangfuseCapture(), exporter, provider


@settings(max_examples=50)
@given(script=scripts)
def test_spans_match_the_calls_and_outcomes_of_the_turn(backends, script):
    langfuse, exporter, provider = backends
    langfuse.spans()
    exporter.clear()
    telemetry = FanoutTelemetry(
        LangfuseTelemetry(langfuse.client, IDENTITY), OtelTelemetry(provider, IDENTITY)
    )
    played = play(script, telemetry=telemetry)
    otel, lf = exporter.get_finished_spans(), langfuse.spans()

    chats = [s for s in otel if s.name == "chat openai/gpt-4o-mini"]
    generations = [s for s in lf if s.name == "agent-llm-call"]
    assert len(chats) == len(generations) == len(played.requests)
    for chat in chats:
        assert chat.attributes["gen_ai.usage.input_tokens"] == 100
        assert chat.attributes["gen_ai.usage.cache_read.input_tokens"] == 40
    for generation in generations:
        usage = json.loads(generation.attributes["langfuse.observation.usage_details"])
        assert usage == {"input": 60, "input_cached_tokens": 40, "output": 10}

    reached = [r for r in played.outcome.tool_chain if r.outcome in LEVELS]
    tools = {
        s.attributes["gen_ai.tool.call.id"]: s for s in otel if s.name.startswith("execute_tool")
    }
    assert sorted(tools) == sorted(r.call_id for r in reached)
    levels = [
        s.attributes.get("langfuse.observation.level") for s in lf if s.name.startswith("mcp-tool-")
    ]
    assert sorted(map(str, levels)) == sorted(str(LEVELS[r.outcome]) for r in reached)
    for record in reached:
        span = tools[record.call_id]
        assert span.attributes["gen_ai.tool.name"] == record.tool_name
        failed = record.outcome is not CallOutcome.SUCCEEDED
        assert (span.status.status_code is StatusCode.ERROR) == failed
        assert span.attributes.get("error.type") == (record.outcome.value if failed else None)
    assert {s.attributes.get("session.id") for s in lf} == {"ep-p"}
