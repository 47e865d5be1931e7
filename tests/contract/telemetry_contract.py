"""The Telemetry contract: events of any shape are accepted, spans nest and close."""

from __future__ import annotations

import math

import pytest

from zork_mcp.domain.events import Event, EventType, Level, SpanKind
from zork_mcp.domain.messages import Usage
from zork_mcp.ports.telemetry import Telemetry


class TelemetryContract:
    @pytest.fixture
    def telemetry(self) -> Telemetry:
        raise NotImplementedError

    def test_events_with_awkward_fields_are_accepted(self, telemetry):
        fields = {"arguments": {"x": [1, {2, 3}]}, "nan": math.nan, "raw": b"\x00", "none": None}
        telemetry.emit(Event(EventType.MCP_TOOL_CALL, "calling", Level.INFO, fields))
        telemetry.emit(Event(EventType.GAME_EMULATOR_RESTARTED, "unicode ☃", Level.WARNING))

    def test_spans_nest_update_and_close(self, telemetry):
        with telemetry.span("agent-tool-calling-session", metadata={"turn": 1}) as outer:
            with telemetry.span("agent-llm-call", kind=SpanKind.GENERATION, input=[]) as llm:
                llm.update(output={"content": "x"}, usage=Usage(3, 4))
            with telemetry.span("mcp-tool-box.think", input={"thought": "t"}) as tool:
                tool.update(output={"content": 1}, metadata={"is_error": False})
            outer.update(metadata={"iterations_used": 1})

    def test_an_exception_inside_a_span_propagates(self, telemetry):
        with pytest.raises(KeyError), telemetry.span("failing"):
            raise KeyError("boom")
