"""What `show`, the HTML report and episode.log tell of a tool call, and where a resume went
on, is read from the fact that was written (STYLE rule 22): each field a reader uses, renamed
in the line, changes what it reads; and a log an earlier version wrote still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.agents import agent_for
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.storage.checkpoint_file import FileCheckpoints
from zork_mcp.adapters.telemetry.human_log import HumanLog
from zork_mcp.adapters.telemetry.jsonl import EVENTS_FILE, JsonlTelemetry, read_events
from zork_mcp.app.episode_view import ToolView, episode_view
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.app.show import episode_lines
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.facts.episode_facts import EpisodeResumed, EpisodeStarted, TurnCompleted
from zork_mcp.domain.facts.events import Event, EventType, Level
from zork_mcp.domain.facts.loop_facts import EventPlace, LoopFact
from zork_mcp.domain.facts.tool_facts import (
    ToolCallRequested,
    ToolResultReceived,
    ToolSkipped,
    ToolTimedOut,
)
from zork_mcp.domain.game.trilogy import ZORK1

PLACE = EventPlace(iteration=2, turn=7)
CALL = ToolCallRequested("box.think", {"thought": "egg"})
UNPARSED = ToolCallRequested("box.note", "{oops", arguments_error="Expecting property name")
RESULT = ToolResultReceived(
    tool_name="box.think",
    result_type="str",
    result_length=1234,
    result_preview="noted: egg",
    is_error=False,
    duration_ms=12.5,
    server_name="box",
    timeout_seconds=30.0,
)
FAILED = ToolResultReceived(
    tool_name="box.think",
    result_type="NoneType",
    result_length=4,
    result_preview="RuntimeError: no such door",
    is_error=True,
    duration_ms=3.25,
    server_name="box",
    timeout_seconds=30.0,
)
HANG = ToolCallRequested("box.hang", {})
TIMEOUT = ToolTimedOut("box.hang", 0.05)
SKIPPED = ToolSkipped("box.echo")


def written(fact: LoopFact, message: str = "a message") -> Event:
    """The event as LoopReport writes it: its place, then its fact."""
    return Event(fact.kind, message, Level.INFO, PLACE.fields() | fact.fields())


def turn(number: int, score: int = 0) -> Event:
    facts = TurnFacts(number, score, number, 0, room="Kitchen")
    return Event.of(TurnCompleted(facts, "wait", "", "Time passes.", 1), "Agent action: wait")


def resumed(after: int = 1, score: int = 25) -> Event:
    resume = EpisodeResumed(turn=after, score=score)
    return Event(EventType.EPISODE_RESUMED, f"Resumed after turn {after}", fields=resume.fields())


def renamed(event: Event, key: str) -> Event:
    fields = {(f"{name}_renamed" if name == key else name): v for name, v in event.fields.items()}
    assert fields != dict(event.fields), f"{key} is not written"
    return Event(event.type, event.message, event.level, fields)


def view_of(folder: Path, *events: Event):
    folder.mkdir()
    telemetry = JsonlTelemetry(folder, "e")
    for event in (Event.of(EpisodeStarted(True, 10), "started"), *events):
        telemetry.emit(event)
    telemetry.close()
    return episode_view(read_events(folder))


def tools_shown(folder: Path, *events: Event) -> list[ToolView]:
    [played] = view_of(folder, *events, turn(1)).turns
    return played.tools


def log_text(*events: Event) -> str:
    log = HumanLog()
    return "".join(log.text(event) for event in events)


def test_show_reads_each_tool_call_as_its_facts_were_written(tmp_path):
    timed_out = written(TIMEOUT, "Tool call timeout: box.hang")
    skipped = written(SKIPPED, "Skipping box.echo: skipped: an earlier call timed out")
    events = (written(CALL), written(RESULT), written(UNPARSED), written(FAILED), written(HANG),
              timed_out, skipped)  # fmt: skip
    assert tools_shown(tmp_path / "e", *events) == [
        ToolView("box.think", '{"thought": "egg"}', "ok", "noted: egg",
                 "str of 1234 chars in 12.5 ms", 1234),
        ToolView("box.note", "{oops"),
        ToolView("box.think", "", "error", "RuntimeError: no such door",
                 "message of 26 chars in 3.25 ms", 26),  # not "NoneType of 4" (issue 55)
        ToolView("box.hang", "{}", "timeout", "", "Tool call timeout: box.hang"),
        ToolView("box.echo", "", "skipped", "", skipped.message),
    ]  # fmt: skip


def test_the_episode_log_reads_each_tool_call_and_its_place_as_written():
    assert log_text(written(CALL, "Agent calling tool box.think"), written(RESULT, "received"),
                    written(FAILED, "received")).splitlines() == [
        "[INFO] Turn 7 Iteration 2: Agent calling tool box.think",
        '[DEBUG] Turn 7 Iteration 2: Tool arguments: {"thought": "egg"}',
        "[INFO] Turn 7 Iteration 2: received",
        "    -> ok (1,234 chars): noted: egg",
        "[INFO] Turn 7 Iteration 2: received",
        "    -> error (26 chars): RuntimeError: no such door",
    ]  # fmt: skip
    assert log_text(resumed(3, 25), turn(4, 30)).splitlines()[:1] == [
        "[INFO] Episode: — resumed after turn 3 —"
    ]
    assert "    score 30 (+5), moves 4, now in Kitchen" in log_text(resumed(3, 25), turn(4, 30))


# Each field `show` (and the HTML report) reads: the events, and which one is renamed.
READ_BY_SHOW = [
    ((CALL,), "tool_name"),
    ((CALL,), "arguments"),
    ((CALL, FAILED), "tool_name"),
    ((CALL, RESULT), "result_type"),  # a failed call's shows its message's size instead
    ((CALL, RESULT), "result_length"),
    ((CALL, FAILED), "result_preview"),
    ((CALL, FAILED), "is_error"),
    ((CALL, FAILED), "duration_ms"),
    ((HANG, TIMEOUT), "tool_name"),
    ((HANG, SKIPPED), "tool_name"),
]


@pytest.mark.parametrize(
    ("facts", "key"),
    READ_BY_SHOW,
    ids=[f"{type(facts[-1]).__name__}.{key}" for facts, key in READ_BY_SHOW],
)
def test_a_tool_field_renamed_in_the_log_is_not_what_show_reads(tmp_path, facts, key):
    events = [written(fact) for fact in facts]
    as_written = tools_shown(tmp_path / "as-written", *events)
    assert tools_shown(tmp_path / "renamed", *events[:-1], renamed(events[-1], key)) != as_written


def test_a_resume_renamed_in_the_log_is_not_where_show_reads_it_went_on(tmp_path):
    events = (turn(1), turn(2), resumed(after=1), turn(2))
    as_written = view_of(tmp_path / "as-written", *events).resumes
    changed = view_of(tmp_path / "renamed", turn(1), turn(2), renamed(resumed(after=1), "turn"),
                      turn(2)).resumes  # fmt: skip
    assert [r.after_turn for r in as_written] == [1]
    assert [r.after_turn for r in changed] == [2]


def play(folder: Path, llm: ScriptedLLM, *, resume: bool = False) -> None:
    telemetry = JsonlTelemetry(folder, "e")
    try:
        Orchestrator(profile=ZORK1, game=FakeGameEnv(), agent=agent_for(llm, telemetry=telemetry),
                     telemetry=telemetry, episode_id="e", max_turns=5, resume=resume,
                     checkpoints=FileCheckpoints(folder)).run()  # fmt: skip
    finally:
        telemetry.close()


ENVELOPE = {"timestamp", "event_type", "level", "message", "episode_id"}  # of every line


def test_the_orchestrator_writes_a_resume_as_the_episode_resumed_its_readers_read(tmp_path):
    with pytest.raises(LLMError):
        play(tmp_path, ScriptedLLM([action_reply("north"), action_reply("east"), LLMError("x")]))
    play(tmp_path, ScriptedLLM([action_reply("look")] * 3), resume=True)
    [line] = [e for e in read_events(tmp_path) if e.type is EventType.EPISODE_RESUMED]
    assert EpisodeResumed.from_fields(line.fields) == EpisodeResumed(turn=2, score=0)
    assert line.fields.keys() - ENVELOPE == EpisodeResumed(turn=3).fields().keys()


# Each field episode.log reads: the events, and which one (in the first) is renamed.
READ_BY_LOG = [
    ((CALL,), "arguments"),
    ((CALL,), "turn"),
    ((CALL,), "iteration"),
    ((RESULT,), "result_preview"),
    ((RESULT,), "result_length"),
    ((FAILED,), "is_error"),
    ((EpisodeResumed(1, 25), TurnFacts(2, 30, 2, 0)), "turn"),
    ((EpisodeResumed(1, 25), TurnFacts(2, 30, 2, 0)), "score"),
]


def logged(fact: object) -> Event:
    if isinstance(fact, EpisodeResumed):
        return resumed(fact.turn or 0, fact.score or 0)
    if isinstance(fact, TurnFacts):
        return turn(fact.turn, fact.score)
    assert isinstance(fact, LoopFact)
    return written(fact)


@pytest.mark.parametrize(
    ("facts", "key"),
    READ_BY_LOG,
    ids=[f"{type(facts[0]).__name__}.{key}" for facts, key in READ_BY_LOG],
)
def test_a_field_renamed_in_an_event_is_not_what_the_episode_log_reads(facts, key):
    first, *rest = (logged(fact) for fact in facts)
    assert log_text(renamed(first, key), *rest) != log_text(first, *rest)


# As the tool loop wrote its events before they were typed, and a result line lacking most
# of its fields (a log cut, or older still): read as they were then.
EARLIER = [
    {"timestamp": 1.0, "event_type": "episode_start", "level": "info", "message": "started",
     "episode_id": "old", "mcp_enabled": True, "max_turns": 5},
    {"timestamp": 2.0, "event_type": "mcp_tool_call", "level": "info",
     "message": "Agent calling tool box.think", "episode_id": "old", "iteration": 1, "turn": 1,
     "tool_name": "box.think", "arguments": {"thought": "egg"}},
    {"timestamp": 3.0, "event_type": "mcp_tool_result", "level": "info",
     "message": "Tool result received from box.think (0.0s)", "episode_id": "old",
     "iteration": 1, "turn": 1, "tool_name": "box.think", "result_type": "str",
     "result_length": 10, "result_preview": "noted: egg", "is_error": False,
     "duration_ms": 3.5, "server_name": "box", "timeout_seconds": 30.0},
    {"timestamp": 4.0, "event_type": "mcp_tool_call", "level": "info",
     "message": "Agent calling tool box.hang", "episode_id": "old", "iteration": 1, "turn": 1,
     "tool_name": "box.hang", "arguments": {}},
    {"timestamp": 5.0, "event_type": "mcp_tool_timeout", "level": "warning",
     "message": "Tool call timeout: box.hang", "episode_id": "old", "iteration": 1, "turn": 1,
     "tool_name": "box.hang", "timeout_seconds": 0.05},
    {"timestamp": 6.0, "event_type": "mcp_tool_result", "level": "info", "message": "result",
     "episode_id": "old", "tool_name": "box.echo", "is_error": False},
    {"timestamp": 7.0, "event_type": "turn_complete", "level": "info", "message": "north",
     "episode_id": "old", "turn": 1, "action": "north", "reasoning": "", "score": 0,
     "moves": 1, "room": "North of House", "tool_calls": 3, "prompt_tokens": 10,
     "completion_tokens": 5, "iterations": 1},
]  # fmt: skip


def test_tool_events_an_earlier_version_wrote_still_read(tmp_path):
    (tmp_path / EVENTS_FILE).write_text("".join(json.dumps(line) + "\n" for line in EARLIER))
    [played] = episode_view(read_events(tmp_path)).turns
    assert played.tools == [
        ToolView("box.think", '{"thought": "egg"}', "ok", "noted: egg", "str of 10 chars in 3.5 ms",
                 10),
        ToolView("box.hang", "{}", "timeout", "", "Tool call timeout: box.hang"),
        ToolView("box.echo", "", "ok", "", "None of None chars in None ms"),
    ]  # fmt: skip
    assert list(episode_lines(read_events(tmp_path)))[1:7] == [
        "Turn 1",
        '    tool box.think {"thought": "egg"}',
        "      -> ok (10 chars): noted: egg",
        "    tool box.hang {}",
        "      -> timeout: Tool call timeout: box.hang",
        "    tool box.echo ",
    ]
