"""The Telemetry that tells what the episode waits for (issue 67) keeps the contract: any
event is accepted, spans nest and close, an exception inside a span propagates."""

import pytest

from tests.contract.telemetry_contract import TelemetryContract
from zork_mcp.adapters.telemetry.activity import ActivityTelemetry
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.facts.activity import Activity, ActivityWatch, Waiting
from zork_mcp.domain.facts.episode_facts import TurnCompleted
from zork_mcp.domain.facts.events import Event
from zork_mcp.domain.facts.span_facts import LLMCalled, TurnDecided, TurnOpened


class TestActivityTelemetry(TelemetryContract):
    @pytest.fixture
    def telemetry(self):
        return ActivityTelemetry(ActivityWatch())

    def test_the_watch_ends_where_the_turn_left_it(self, telemetry):
        self.test_spans_nest_update_and_close(telemetry)
        assert telemetry.watch.now == Activity(1, Waiting.GAME, 1, command="look", mcp=True)


def test_the_telemetry_adapter_tells_the_watch_each_span_and_each_completed_turn():
    watch = ActivityWatch()
    telemetry = ActivityTelemetry(watch)
    with telemetry.span("session", facts=TurnOpened(False, 20, 7)) as span:
        with telemetry.span("llm", facts=LLMCalled("m", 2, None, forced_final=False)):
            assert watch.now == Activity(7, Waiting.MODEL, calls=1)
        span.update(output="north", facts=TurnDecided(1, 0, "north", False))
    assert watch.now is not None and watch.now.waiting is Waiting.GAME
    played = TurnCompleted(TurnFacts(7, 0, 7, 0), "north", "", "North of House", 1)
    telemetry.emit(Event.of(played, "Agent action: north"))
    assert watch.now == Activity(8)
