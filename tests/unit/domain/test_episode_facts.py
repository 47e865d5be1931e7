"""An episode's own events are typed facts that writer and readers both import (STYLE rule
22): every payload the orchestrator writes reads back the same through the one events
reader, a field renamed on one side does not read back, and a log an earlier version wrote
still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.agents import agent_for
from tests.support.episode_facts import episode_facts
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.telemetry.jsonl import EVENTS_FILE, JsonlTelemetry, read_events
from zork_mcp.app.orchestrator import Orchestrator, TurnReport
from zork_mcp.app.show import episode_lines
from zork_mcp.app.sweep.episode import played_turns
from zork_mcp.domain.episode.episode import EndReason, EpisodeSummary
from zork_mcp.domain.episode.episode_state import EpisodeState
from zork_mcp.domain.episode.turn_facts import ToolUse, TurnFacts
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.facts.episode_facts import (
    EpisodeEnded,
    EpisodeFact,
    EpisodeStarted,
    TurnCompleted,
)
from zork_mcp.domain.facts.events import TYPE_OF, Event
from zork_mcp.domain.game.trilogy import ZORK1
from zork_mcp.domain.llm.messages import CostParts, Usage


@given(written=st.lists(episode_facts, max_size=6))
def test_every_payload_written_reads_back_the_same_through_the_one_reader(
    tmp_path_factory, written
):
    folder = tmp_path_factory.mktemp("episode")
    telemetry = JsonlTelemetry(folder, "episode-1")
    for fact in written:
        telemetry.emit(Event.of(fact, "a message"))
    telemetry.close()
    if not written:  # nothing logged: no file, so a run that never started leaves none
        assert not (folder / EVENTS_FILE).exists()
        return
    read = [(event.type, event.payload) for event in read_events(folder)]
    assert read == [(TYPE_OF[type(fact)], fact) for fact in written]


# Each payload with every field away from what a reader would make of its absence.
EVERY_FIELD_SET: list[EpisodeFact] = [
    EpisodeStarted(mcp_enabled=True, max_turns=40, room="Kitchen", location=27, turn=30),
    TurnCompleted(
        TurnFacts(
            3,
            25,
            7,
            2,
            room="Kitchen",
            valid=False,
            died=True,
            prompt_tokens=120,
            completion_tokens=30,
            llm_seconds=1.5,
            tool_errors=1,
            tools=(ToolUse("box.think", 2, 1),),
            location=27,
            repeated=True,
            cost_usd=0.002,
            unreadable=True,
        ),
        action="open window",
        reasoning="it is ajar",
        observation="Opened.",
        iterations=3,
    ),
    EpisodeEnded(
        turns=3,
        score=25,
        moves=7,
        room="Kitchen",
        tool_calls=2,
        prompt_tokens=360,
        completion_tokens=90,
        cached_tokens=100,
        cost_usd=0.01,
        end_reason=EndReason.LLM_ERROR,
        error="LLMError: down",
        seconds=4.5,
        cache_write_tokens=20,
        cost_parts=CostParts(0.004, 0.001, 0.002, 0.003),
        unpriced="one call of an unknown model",
        unreadable_replies=1,
    ),
]
WRITTEN = [(fact, key) for fact in EVERY_FIELD_SET for key in fact.fields()]


@pytest.mark.parametrize(
    ("fact", "key"), WRITTEN, ids=[f"{type(fact).__name__}.{key}" for fact, key in WRITTEN]
)
def test_a_field_the_writer_renames_does_not_read_back(fact, key):
    written = fact.fields()
    renamed = {(f"{name}_renamed" if name == key else name): v for name, v in written.items()}
    assert type(fact).from_fields(written) == fact
    assert _read_or_refused(type(fact), renamed) != fact


def _read_or_refused(kind: type[EpisodeFact], values: dict) -> EpisodeFact | None:
    try:
        return kind.from_fields(values)
    except (KeyError, TypeError):
        return None


def test_a_field_a_reader_renames_is_an_attribute_error():
    ended = EVERY_FIELD_SET[-1]
    with pytest.raises(AttributeError):
        ended.reason  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(TypeError):
        ended["end_reason"]  # type: ignore[index]


class Reports:
    def __init__(self) -> None:
        self.turns: list[TurnReport] = []

    def begin(self, state: EpisodeState) -> None:
        pass

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None:
        self.turns.append(report)


def play(folder: Path, progress: Reports) -> EpisodeSummary:
    """An episode of the fake game won in three turns, logged to `folder`."""
    telemetry = JsonlTelemetry(folder, "e")
    llm = ScriptedLLM(
        [action_reply("north", "a path"), action_reply("east"), action_reply("take egg")]
    )
    summary = Orchestrator(profile=ZORK1, game=FakeGameEnv(), agent=agent_for(llm),
                           telemetry=telemetry,
                           episode_id="e", max_turns=10, progress=progress).run()  # fmt: skip
    telemetry.close()
    return summary


def test_the_orchestrator_writes_its_start_turns_and_end_as_their_payloads(tmp_path):
    progress = Reports()
    summary = play(tmp_path, progress)
    reports = progress.turns
    start, *turns, end = (e.payload for e in read_events(tmp_path) if e.payload is not None)
    assert start == EpisodeStarted(mcp_enabled=False, max_turns=10, room="West of House",
                                   location=10)  # fmt: skip
    assert all(isinstance(turn, TurnCompleted) for turn in turns)
    assert [turn.facts for turn in turns] == [report.facts for report in reports]
    assert [(t.action, t.reasoning) for t in turns] == [("north", "a path"), ("east", ""),
                                                        ("take egg", "")]  # fmt: skip
    assert turns[-1].observation == "Taken."
    assert end == EpisodeEnded.of(summary) and end.end_reason is EndReason.GAME_OVER


# As the first version wrote them (d7fcc66): no game answer, no turn facts beyond the totals
# (and a room that could be None), no cost, cached tokens or error at the end.
FIRST_VERSION = [
    {"timestamp": 1.0, "event_type": "episode_start", "level": "info", "message": "started",
     "episode_id": "old", "mcp_enabled": False, "max_turns": 5},
    {"timestamp": 2.0, "event_type": "turn_complete", "level": "info", "message": "north",
     "episode_id": "old", "turn": 1, "action": "north", "reasoning": "", "score": 0,
     "moves": 1, "room": None, "tool_calls": 0, "prompt_tokens": 10, "completion_tokens": 5,
     "iterations": 1},
    {"timestamp": 3.0, "event_type": "episode_end", "level": "info", "message": "ended",
     "episode_id": "old", "turns": 1, "score": 0, "moves": 1, "room": "North of House",
     "tool_calls": 0, "prompt_tokens": 10, "completion_tokens": 5, "end_reason": "turn_limit",
     "seconds": 0.5},
]  # fmt: skip


def test_an_events_log_written_by_the_first_version_still_reads(tmp_path):
    (tmp_path / EVENTS_FILE).write_text("".join(json.dumps(line) + "\n" for line in FIRST_VERSION))
    start, turn, end = (event.payload for event in read_events(tmp_path))
    assert start == EpisodeStarted(mcp_enabled=False, max_turns=5)
    facts = TurnFacts(1, 0, 1, 0, prompt_tokens=10, completion_tokens=5)
    assert turn == TurnCompleted(facts, "north", reasoning="", observation="", iterations=1)
    assert end == EpisodeEnded(turns=1, score=0, moves=1, room="North of House", tool_calls=0,
                               prompt_tokens=10, completion_tokens=5, cached_tokens=0,
                               cost_usd=None, end_reason=EndReason.TURN_LIMIT, error=None,
                               seconds=0.5)  # fmt: skip
    assert isinstance(end, EpisodeEnded) and end.end_reason is EndReason.TURN_LIMIT


@pytest.mark.parametrize(
    "line",
    [
        {"event_type": "turn_complete", "turn": 1, "action": "north"},
        {"event_type": "episode_end", "end_reason": "turn_limit"},
        FIRST_VERSION[-1] | {"end_reason": "game_won"},
    ],
)
def test_an_episode_event_without_its_payload_is_refused_with_where(tmp_path, line):
    (tmp_path / EVENTS_FILE).write_text(f"{json.dumps(FIRST_VERSION[0])}\n{json.dumps(line)}\n")
    kind = line["event_type"]
    with pytest.raises(ConfigurationError, match=rf"events\.jsonl:2 does not hold the {kind}"):
        read_events(tmp_path)


def test_show_and_a_resumed_sweep_episode_read_the_payloads_the_orchestrator_wrote(tmp_path):
    progress = Reports()
    play(tmp_path, progress)
    lines = list(episode_lines(read_events(tmp_path)))
    assert lines[0] == "Episode e (MCP off, 10 turns max)"
    assert "    thinking: a path" in lines and "    > take egg" in lines
    assert lines[-2:] == [
        "Ended (game_over): score 10 in 3 moves, 3 turns, 0 tool calls",
        "    cost: unpriced (no price was reported)",  # a scripted LLM reports no price
    ]
    assert played_turns(tmp_path, 2) == [report.facts for report in progress.turns[:2]]


def test_an_episode_end_carries_the_summarys_totals_and_its_time_to_the_millisecond():
    parts = CostParts(0.001, 0.0002, 0.0, 0.003)
    usage = Usage(prompt_tokens=1200, completion_tokens=340, cached_tokens=800, cost_usd=0.0042,
                  cost_parts=parts)  # fmt: skip
    summary = EpisodeSummary("e", turns=7, score=35, moves=9, room="Kitchen", tool_calls=4,
                             usage=usage, end_reason=EndReason.ERROR, seconds=12.34567,
                             error="the model stopped answering")  # fmt: skip
    end = EpisodeEnded.of(summary)
    assert end.fields() == {
        "turns": 7, "score": 35, "moves": 9, "room": "Kitchen", "tool_calls": 4,
        "prompt_tokens": 1200, "completion_tokens": 340, "cached_tokens": 800,
        "cost_usd": 0.0042, "end_reason": "error", "error": "the model stopped answering",
        "seconds": 12.346, "cache_write_tokens": 0, "unpriced": None, "unreadable_replies": 0,
        "cost_parts": {"input": 0.001, "cached_input": 0.0002, "cache_write": 0.0,
                       "output": 0.003},
    }  # fmt: skip
    assert EpisodeEnded.from_fields(end.fields()) == end
    assert type(end.fields()["end_reason"]) is str  # plain JSON, not the enum
