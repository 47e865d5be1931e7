"""The Telemetry contract for the Langfuse and OpenTelemetry adapters, on the real SDKs."""

from __future__ import annotations

import json

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.contract.telemetry_contract import TelemetryContract
from tests.support.langfuse_capture import LangfuseCapture
from zork_mcp.adapters.telemetry.langfuse import LangfuseTelemetry
from zork_mcp.adapters.telemetry.otel import OtelTelemetry
from zork_mcp.adapters.telemetry.trace_semantics import RunIdentity
from zork_mcp.builders.providers import resolve_model

IDENTITY = RunIdentity(
    resolve_model("anthropic", "claude-x"), session_id="ep-1", mcp_config="off", seed=3
)


class TestLangfuseTelemetry(TelemetryContract):
    @pytest.fixture
    def capture(self):
        return LangfuseCapture()

    @pytest.fixture
    def telemetry(self, capture):
        return LangfuseTelemetry(capture.client, IDENTITY)

    def test_a_span_that_raises_is_an_error(self, telemetry, capture):
        self.test_an_exception_inside_a_span_propagates(telemetry)
        (span,) = capture.spans()
        assert span.attributes["langfuse.observation.level"] == "ERROR"
        assert span.attributes["langfuse.observation.status_message"] == "KeyError: 'boom'"
        assert span.attributes["session.id"] == "ep-1"

    def test_without_an_identity_spans_carry_no_session(self, capture):
        self.test_spans_nest_update_and_close(LangfuseTelemetry(capture.client))
        spans = capture.spans()
        assert len(spans) == 3 and all("session.id" not in s.attributes for s in spans)


class TestOtelTelemetry(TelemetryContract):
    @pytest.fixture
    def exporter(self):
        return InMemorySpanExporter()

    @pytest.fixture
    def telemetry(self, exporter):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        return OtelTelemetry(provider, IDENTITY)

    def test_the_span_tree_and_its_genai_names(self, telemetry, exporter):
        self.test_spans_nest_update_and_close(telemetry)
        spans = {s.name: s for s in exporter.get_finished_spans()}
        assert set(spans) == {
            "invoke_agent zork-episode",
            "chat claude-x",
            "execute_tool box.think",
        }
        root = spans["invoke_agent zork-episode"]
        assert root.parent is None and root.attributes["zork_mcp.turn"] == 1
        for child in ("chat claude-x", "execute_tool box.think"):
            assert spans[child].parent.span_id == root.context.span_id
        chat = spans["chat claude-x"]
        assert chat.attributes["gen_ai.provider.name"] == "anthropic"
        assert chat.attributes["gen_ai.usage.input_tokens"] == 3
        assert "gen_ai.usage.cost" not in chat.attributes, "no cost reported, none invented"

    def test_a_span_that_raises_is_an_error(self, telemetry, exporter):
        self.test_an_exception_inside_a_span_propagates(telemetry)
        (span,) = exporter.get_finished_spans()
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes["error.type"] == "KeyError"

    def test_events_land_on_the_current_span(self, telemetry, exporter):
        self.test_events_with_awkward_fields_are_accepted(telemetry)
        assert exporter.get_finished_spans() == ()
        with telemetry.span("agent-tool-calling-session"):
            self.test_events_with_awkward_fields_are_accepted(telemetry)
        (span,) = exporter.get_finished_spans()
        assert [e.name for e in span.events] == ["mcp_tool_call", "game_emulator_restarted"]
        assert (
            span.events[0].attributes["zork_mcp.nan"] != span.events[0].attributes["zork_mcp.nan"]
        )

    def test_message_content_only_when_asked(self, exporter):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        for capture in (False, True):
            exporter.clear()
            self.test_spans_nest_update_and_close(OtelTelemetry(provider, IDENTITY, capture))
            spans = {s.name: s.attributes for s in exporter.get_finished_spans()}
            chat, tool = spans["chat claude-x"], spans["execute_tool box.think"]
            if not capture:
                assert not any(k.startswith("gen_ai.input") for k in {*chat, *tool})
                continue
            assert json.loads(chat["gen_ai.output.messages"]) == {"content": "x"}
            assert json.loads(tool["gen_ai.tool.call.arguments"]) == {"thought": "t"}
            assert json.loads(tool["gen_ai.tool.call.result"]) == {"content": 1}
