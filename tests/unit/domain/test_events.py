"""Event types have one home (EventType), and events.jsonl has one reader beside its writer:
a renamed or unknown event type is refused where the event is made, and every event written
reads back with its type and its fields."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.episode_facts import episode_facts
from zork_mcp.adapters.telemetry.jsonl import EVENTS_FILE, JsonlTelemetry, read_events
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.facts.episode_facts import EpisodeStarted
from zork_mcp.domain.facts.events import PAYLOADS, TYPE_OF, Event, EventType, Level, LoggedEvent


def test_an_event_of_a_type_not_in_the_enum_is_refused_where_it_is_made():
    with pytest.raises(ValueError, match="turn_completed"):
        Event("turn_completed", "a misspelt type")  # type: ignore[arg-type]
    assert Event("turn_complete", "by its wire name").type is EventType.TURN_COMPLETE  # type: ignore[arg-type]


fields = st.dictionaries(
    st.sampled_from(["turn", "score", "action", "note", "arguments"]),
    st.none() | st.integers() | st.text() | st.lists(st.text(), max_size=3),
    max_size=4,
)
# The episode's own events carry their payload's fields; any other event, any fields.
events = st.tuples(
    st.sampled_from([kind for kind in EventType if kind not in PAYLOADS]), st.text(), fields
) | st.builds(
    lambda fact, text: (TYPE_OF[type(fact)], text, fact.fields()), episode_facts, st.text()
)


@given(
    written=st.lists(events, max_size=8),
    span_at=st.integers(0, 8),
)
def test_every_event_written_reads_back_with_its_type_and_fields(
    tmp_path_factory, written, span_at
):
    folder = tmp_path_factory.mktemp("episode")
    telemetry = JsonlTelemetry(folder, "episode-1")
    for index, (kind, message, extra) in enumerate(written):
        if index == span_at:
            with telemetry.span("agent-llm-call"):
                pass
        telemetry.emit(Event(kind, message, Level.INFO, extra))
    telemetry.close()
    if not written:  # nothing logged: no file, so a run that never started leaves none
        assert not (folder / EVENTS_FILE).exists()
        return
    read = [event for event in read_events(folder) if event.type is not None]
    assert [(e.type, e["message"], {k: e[k] for k in extra}) for e, (_, _, extra) in
            zip(read, written, strict=True)] == written  # fmt: skip
    spans = [event for event in read_events(folder) if event.type is None]
    assert len(spans) == (1 if span_at < len(written) else 0)


def test_a_folder_without_events_or_with_a_broken_line_is_refused_with_where(tmp_path):
    with pytest.raises(ConfigurationError, match=r"No events\.jsonl in"):
        read_events(tmp_path)
    start = '{"event_type": "episode_start", "mcp_enabled": true, "max_turns": 5}'
    (tmp_path / EVENTS_FILE).write_text(f"{start}\nnot json\n")
    with pytest.raises(ConfigurationError, match=r"events\.jsonl:2 is not a JSON event"):
        read_events(tmp_path)


def test_a_logged_event_gives_a_missing_field_as_the_default_or_a_key_error():
    event = LoggedEvent(EventType.MCP_TOOL_RESULT, {"turn": 3, "note": None})
    assert (event.get("turn"), event.get("note", "x"), event.get("score", 0)) == (3, None, 0)
    assert event.get("score") is None and event["turn"] == 3
    with pytest.raises(KeyError):
        event["score"]


def test_an_episode_fact_becomes_an_event_with_its_message_and_level():
    fact = EpisodeStarted(mcp_enabled=True, max_turns=30)
    started = Event.of(fact, "episode e started")
    assert (started.type, started.message, started.level) == (
        EventType.EPISODE_START, "episode e started", Level.INFO,
    )  # fmt: skip
    assert Event.of(fact, "again", Level.WARNING).level is Level.WARNING
