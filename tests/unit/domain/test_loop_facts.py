"""The tool loop's events are typed facts that writer and readers both import (STYLE rule
22): LoopReport writes each event as its place and one fact, whole; every fact written reads
back the same through the one events reader; a field renamed on one side does not read back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.adapters.telemetry.jsonl import JsonlTelemetry, read_events
from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.facts.episode_facts import (
    BudgetReached,
    EpisodeEnded,
    EpisodeResumed,
    EpisodeStarted,
)
from zork_mcp.domain.facts.events import PAYLOADS, Event, EventType, Level
from zork_mcp.domain.facts.loop_facts import (
    LOOP_FACTS,
    AnswerUnparsed,
    Backtracked,
    ContextCompacted,
    EventPlace,
    IterationStarted,
    LoopFact,
    NoContent,
    ProtocolSpoken,
    SessionCompleted,
    ToolRejected,
    ToolsLeftOut,
    UnexpectedState,
)
from zork_mcp.domain.facts.mcp_state import McpState
from zork_mcp.domain.facts.notice_facts import (
    NOTICE_FACTS,
    ConnectRecovered,
    ConnectRetried,
    EmulatorRestarted,
    ForkServerLost,
    GameSandboxDegraded,
    HostRefused,
    RepliesUnreadable,
    SandboxDegraded,
    SandboxOff,
    ServerDisabled,
    ServerFileSkipped,
)
from zork_mcp.domain.facts.tool_facts import (
    TOOL_FACTS,
    ToolCallFailed,
    ToolCallRequested,
    ToolCircuitOpened,
    ToolResultReceived,
    ToolSessionBroken,
    ToolSkipped,
    ToolTimedOut,
    tool_fact,
)
from zork_mcp.domain.llm.messages import (
    CostParts,
    FinishReason,
    FunctionCall,
    LLMResponse,
    ToolCall,
    Usage,
)
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.loop.context_budget import Compaction
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.loop_records import (
    Backtrack,
    ExitReason,
    LoopOutcome,
    LoopState,
    ToolCallRecord,
)
from zork_mcp.domain.loop.loop_report import LoopReport
from zork_mcp.domain.servers.protocol_era import ServerProtocol
from zork_mcp.domain.tools.tool_judgment import ToolRejection
from zork_mcp.domain.tools.tool_offer import LeftOut
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec

KINDS: dict = LOOP_FACTS | TOOL_FACTS

# One fact of each kind, every field away from what a reader makes of its absence (None).
EVERY_FIELD_SET: list[LoopFact] = [
    ToolRejected("box", "bad name", "no input schema"),
    ProtocolSpoken("box", "2025-06-18", "modern"),
    ToolsLeftOut(["box.a", "box.b"], "over the tool limit"),
    IterationStarted(20),
    UnexpectedState(FinishReason.STOP, "end_turn"),
    NoContent(3, "max_iterations"),
    ContextCompacted(
        tokens_before=900, tokens_after=400, max_tokens=500, steps_condensed=2, critical_kept=1
    ),
    Backtracked(1, ["box.fail"]),
    AnswerUnparsed("not json", "no AgentResponse JSON object found"),
    SessionCompleted(3, 4, ["box.echo"], "north"),
    ToolCallRequested("box.echo", "{oops", arguments_error="Expecting property name"),
    ToolResultReceived(
        tool_name="box.echo",
        result_type="str",
        result_length=1234,
        result_preview="a",
        is_error=True,
        duration_ms=12.346,
        server_name="box",
        timeout_seconds=30.0,
    ),
    ToolTimedOut("box.hang", 0.05),
    ToolSkipped("box.echo"),
    ToolCallFailed("box.fail", "RuntimeError: no such door", "tool_error"),
    ToolSessionBroken("box.crash", "the tool server stopped"),
    ToolCircuitOpened("box.fail"),
]
NOTICES = [
    ConnectRetried("memory", "refused"),
    ServerDisabled("memory", "refused again"),
    ConnectRecovered("memory"),
    SandboxOff(["memory"]),
    SandboxDegraded(["memory"], ["TCP connections"], abi=3, namespaces=False),
    GameSandboxDegraded(3, ["TCP connections"]),
    HostRefused("fetch", "example.com", 443),
    EmulatorRestarted("look", "killed", 1),
    ServerFileSkipped("/logs/e/servers/memory/notes.jsonl", "a pipe"),
    RepliesUnreadable(turn=6, replies=5),
]
EPISODE_OWN = [
    EpisodeStarted(True, 40, "West of House", 64, 3),
    EpisodeResumed(turn=3, score=25),
    EpisodeEnded(
        4,
        5,
        4,
        "Attic",
        2,
        900,
        80,
        300,
        0.01,
        EndReason.BUDGET,
        "e",
        1.5,
        cache_write_tokens=12,
        cost_parts=CostParts(0.004, 0.001, 0.002, 0.003),
        unpriced="x",
        unreadable_replies=2,
    ),
    BudgetReached(4, 0.5, 50_000, 0.49, 41_000, 0.02, 3_000),
    McpState(True, ("memory",), "mcp_config.json", "said"),
]
TYPED = [*EVERY_FIELD_SET, *NOTICES, *EPISODE_OWN, EventPlace(iteration=2, turn=7)]
WRITTEN = [(fact, key) for fact in TYPED for key in fact.fields()]


def test_every_event_type_is_read_through_one_type():
    """Issue 54: no event goes out as a loose dict; each type has its fact, read back whole."""
    typed = KINDS.keys() | NOTICE_FACTS.keys() | PAYLOADS.keys() | {EventType.MCP_STATE}
    assert set(EventType) == typed
    assert {type(fact) for fact in NOTICES} | {ForkServerLost} == set(NOTICE_FACTS.values())


def test_every_kind_of_loop_event_has_one_fact_type_and_one_here():
    assert {type(fact) for fact in EVERY_FIELD_SET} == set(KINDS.values())
    assert len(KINDS) == len(LOOP_FACTS) + len(TOOL_FACTS) == len(EVERY_FIELD_SET)
    assert not KINDS.keys() & PAYLOADS.keys(), "an episode's own events are episode facts"
    assert all(KINDS[fact.kind] is type(fact) for fact in EVERY_FIELD_SET)


@pytest.mark.parametrize(
    ("fact", "key"), WRITTEN, ids=[f"{type(fact).__name__}.{key}" for fact, key in WRITTEN]
)
def test_a_field_the_writer_renames_does_not_read_back(fact, key):
    written = fact.fields()
    renamed = {(f"{name}_renamed" if name == key else name): v for name, v in written.items()}
    assert type(fact).from_fields(written) == fact
    try:
        read = type(fact).from_fields(renamed)
    except (KeyError, TypeError, ValueError):  # an episode's own fact without its payload
        return
    assert read != fact


def test_a_field_a_reader_renames_is_an_attribute_error():
    result = next(fact for fact in EVERY_FIELD_SET if isinstance(fact, ToolResultReceived))
    with pytest.raises(AttributeError):
        result.preview  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(TypeError):
        result["result_preview"]  # type: ignore[index]


def test_a_line_without_a_field_reads_it_as_none_and_a_call_writes_no_error_it_has_not():
    assert ToolResultReceived.from_fields({"tool_name": "box.echo"}) == ToolResultReceived(
        "box.echo",
        None,
        None,
        None,
        None,
        None,
        None,
        None,  # type: ignore[arg-type]
    )
    assert EpisodeResumed.from_fields({"turn": 1}) == EpisodeResumed(turn=1, score=None)
    assert ToolCallRequested("box.echo", {}).fields() == {"tool_name": "box.echo", "arguments": {}}
    assert tool_fact(None, {"tool_name": "x"}) is None
    assert tool_fact(IterationStarted.kind, {"max_iterations": 3}) is None, "not a tool's"


def test_every_fact_written_to_the_events_log_reads_back_the_same(tmp_path):
    telemetry = JsonlTelemetry(tmp_path, "e")
    place = EventPlace(iteration=2, turn=7)
    for fact in EVERY_FIELD_SET:
        telemetry.emit(Event(fact.kind, "a message", Level.INFO, place.fields() | fact.fields()))
    telemetry.close()
    read = read_events(tmp_path)
    assert [KINDS[event.type].from_fields(event.fields) for event in read] == EVERY_FIELD_SET
    assert {EventPlace.from_fields(event.fields) for event in read} == {place}


_names = st.text(TEXT, min_size=1, max_size=20)
_texts = st.text(TEXT, max_size=40)
_seconds = st.floats(0, 10**4, allow_nan=False)
_arguments = st.dictionaries(
    st.text(TEXT, max_size=10),
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _texts,
    max_size=3,
)
_outcomes = st.sampled_from([outcome.value for outcome in CallOutcome])
tool_facts = st.one_of(
    st.builds(ToolCallRequested, _names, _arguments),
    st.builds(ToolCallRequested, _names, _texts, arguments_error=_texts),
    st.builds(
        ToolResultReceived,
        tool_name=_names,
        result_type=_names,
        result_length=st.integers(0, 10**6),
        result_preview=_texts,
        is_error=st.booleans(),
        duration_ms=_seconds,
        server_name=st.none() | _names,
        timeout_seconds=_seconds,
    ),
    st.builds(ToolTimedOut, _names, _seconds),
    st.builds(ToolSkipped, _names),
    st.builds(ToolCallFailed, _names, st.none() | _texts, _outcomes),
    st.builds(ToolSessionBroken, _names, st.none() | _texts),
    st.builds(ToolCircuitOpened, _names),
)


@given(written=st.lists(tool_facts, min_size=1, max_size=6))
def test_every_tool_fact_written_reads_back_the_same_through_the_one_reader(
    tmp_path_factory, written
):
    folder = tmp_path_factory.mktemp("episode")
    telemetry = JsonlTelemetry(folder, "e")
    for fact in written:
        telemetry.emit(Event(fact.kind, "a message", Level.INFO, fact.fields()))
    telemetry.close()
    assert [tool_fact(event.type, event.fields) for event in read_events(folder)] == written


def record(outcome: CallOutcome, result: ToolCallResult) -> ToolCallRecord:
    return ToolCallRecord(2, "call_1", "box.echo", {}, outcome, result, duration_seconds=0.25)


def report_everything(report: LoopReport, state: LoopState) -> None:
    """Each of the report's methods once, each outcome of a call."""
    report.tools_rejected([ToolRejection("box", "bad name", "no input schema")])
    report.protocols_spoken([ServerProtocol("box", "2025-06-18")])
    report.tools_left_out([LeftOut("box.a", "over the tool limit")])
    report.iteration_started()
    report.unexpected_state(LLMResponse(None, finish_reason=FinishReason.STOP))
    report.left_without_content(ExitReason.MAX_ITERATIONS)
    report.context_compacted(Compaction((), 900, 400, 2, 1))
    report.arguments_unparsed(
        ToolCall("call_1", FunctionCall("box.echo", "{oops")), ValueError("not JSON")
    )
    report.tool_called("box.echo", {"text": "a"})
    failed = record(CallOutcome.TOOL_ERROR, ToolCallResult.failure("no such door"))
    for outcome, result in [
        (CallOutcome.SUCCEEDED, ToolCallResult.success("a")),
        (CallOutcome.TOOL_ERROR, ToolCallResult.failure("no such door")),
        (CallOutcome.TIMED_OUT, ToolCallResult.failure("too slow")),
        (CallOutcome.SESSION_BROKEN, ToolCallResult.failure("the server died")),
        (CallOutcome.UNKNOWN_TOOL, ToolCallResult.failure("unknown tool")),
    ]:
        report.call_recorded(record(outcome, result))
    report.call_skipped("box.echo", ToolCallResult.failure("skipped: the server stopped"))
    report.circuit_opened("box.fail", 3)
    state.backtracks.append(Backtrack(2, ("call_1",), "try another way"))
    report.backtracked([failed])
    report.answer_unparsed("not json", "no AgentResponse JSON object found")
    outcome = LoopOutcome("north", 2, 3, ExitReason.CONTENT, (failed,), Usage(), "{}", messages=())
    report.session_complete(outcome, "north")


def test_loop_report_writes_each_event_as_its_place_and_one_fact_whole():
    """What a reader reads back through the types is every field written, in order."""
    telemetry, state = FakeTelemetry(), LoopState(iterations=2)
    tools = {"box.echo": ToolSpec("box", "echo")}
    report = LoopReport(telemetry, 7, LoopLimits(tool_timeout_seconds=0.05), tools, state)
    report_everything(report, state)
    assert {event.type for event in telemetry.events} == KINDS.keys()
    for event in telemetry.events:
        place = EventPlace.from_fields(event.fields)
        read = place.fields() | KINDS[event.type].from_fields(event.fields).fields()
        assert list(read.items()) == list(event.fields.items()), event.type
        assert place == EventPlace(iteration=2, turn=7)
