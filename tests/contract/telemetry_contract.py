"""The Telemetry contract: events of any shape are accepted, spans nest and close."""

from __future__ import annotations

import math

import pytest

from zork_mcp.domain.facts.events import Event, EventType, Level
from zork_mcp.domain.facts.span_facts import (
    LLMAnswered,
    LLMCalled,
    ToolAnswered,
    ToolCalled,
    TurnDecided,
    TurnOpened,
)
from zork_mcp.domain.llm.messages import ToolChoice, Usage
from zork_mcp.ports.telemetry import Telemetry

OPENED = TurnOpened(mcp_enabled=True, max_iterations=5, turn=1)
DECIDED = TurnDecided(iterations_used=1, tools_called=1, final_action="look", tools_offered=True)


class TelemetryContract:
    @pytest.fixture
    def telemetry(self) -> Telemetry:
        raise NotImplementedError

    def test_events_with_awkward_fields_are_accepted(self, telemetry):
        fields = {"arguments": {"x": [1, {2, 3}]}, "nan": math.nan, "raw": b"\x00", "none": None}
        telemetry.emit(Event(EventType.MCP_TOOL_CALL, "calling", Level.INFO, fields))
        telemetry.emit(Event(EventType.GAME_EMULATOR_RESTARTED, "unicode ☃", Level.WARNING))

    def test_spans_nest_update_and_close(self, telemetry):
        with telemetry.span("agent-tool-calling-session", facts=OPENED) as outer:
            called = LLMCalled(
                model="claude-x", tools=1, tool_choice=ToolChoice.AUTO, forced_final=False
            )
            with telemetry.span("agent-llm-call", input=[], facts=called) as llm:
                llm.update(
                    output={"content": "x"}, facts=LLMAnswered("claude-x-1"), usage=Usage(3, 4)
                )
            call = ToolCalled(
                server_name="box", timeout_seconds=2.0, tool_name="box.think", call_id="c"
            )
            with telemetry.span("mcp-tool-box.think", input={"thought": "t"}, facts=call) as tool:
                answered = ToolAnswered(is_error=False, outcome="succeeded", duration_ms=1.5)
                tool.update(output={"content": 1}, facts=answered)
            outer.update(facts=DECIDED)

    def test_an_exception_inside_a_span_propagates(self, telemetry):
        with pytest.raises(KeyError), telemetry.span("failing"):
            raise KeyError("boom")
