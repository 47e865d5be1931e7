"""What an episode waits for, turn by turn (issue 67), read from the spans it opens and
closes: the turn's MCP servers, the model (which call), its tool calls (which), the game."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.facts.activity import (
    Activity,
    ActivityWatch,
    SpanClosed,
    SpanOpened,
    SpanUpdated,
    TurnEnded,
    Waiting,
    after,
)
from zork_mcp.domain.facts.span_facts import LLMCalled, ToolCalled, TurnDecided, TurnOpened

LLM = LLMCalled("m", 2, None, forced_final=False)


def tool(name: str, call: str = "c") -> ToolCalled:
    return ToolCalled(name.split(".")[0], 30, name, call)


def test_a_turn_reads_as_servers_model_tools_model_game_then_the_next_turn():
    watch, seen = ActivityWatch(), []
    watch.listen(seen.append)
    for change in (
        SpanOpened(TurnOpened(True, 20, 3)), SpanOpened(LLM), SpanClosed(LLM),
        SpanOpened(tool("a.x", "1")), SpanOpened(tool("b.y", "2")), SpanClosed(tool("a.x", "1")),
        SpanClosed(tool("b.y", "2")), SpanOpened(LLM), SpanClosed(LLM),
        SpanUpdated(TurnDecided(2, 2, "open mailbox", True)), SpanClosed(TurnOpened(True, 20, 3)),
        TurnEnded(),
    ):  # fmt: skip
        watch.change(change)
    assert [a.text(["a", "b"]) for a in seen if a is not None] == [
        "turn 3: starting MCP servers a, b…",
        "turn 3: waiting for the model…",
        "turn 3: the model answered; closing the MCP session…",
        "turn 3: waiting for tool a.x…",
        "turn 3: waiting for tools a.x, b.y…",
        "turn 3: waiting for tool b.y…",
        "turn 3: the tools answered…",
        "turn 3: waiting for the model (call 2)…",
        "turn 3: the model answered; closing the MCP session…",
        "turn 3: waiting for the game: > open mailbox…",
        "turn 4: preparing the turn…",
    ]


def test_without_mcp_a_turn_waits_for_the_model_at_once_and_the_same_tool_twice_is_counted():
    started = after(None, SpanOpened(TurnOpened(False, 20, 1)))
    assert started == Activity(1, Waiting.MODEL)
    assert started.text() == "turn 1: waiting for the model…"
    twice = after(after(started, SpanOpened(tool("a.x"))), SpanOpened(tool("a.x")))
    assert twice is not None and twice.text() == "turn 1: waiting for tools a.x ×2…"


@st.composite
def turns(draw: st.DrawFn) -> list[list[list[str]]]:
    """Turns, each a list of the model's calls, each the tools it asked for in one batch."""
    names = st.sampled_from(["a.x", "a.y", "b.z"])
    return draw(st.lists(st.lists(st.lists(names, max_size=3), min_size=1, max_size=4),
                         min_size=1, max_size=3))  # fmt: skip


@given(turns(), st.randoms())
def test_the_activity_is_always_the_turn_and_what_is_open_in_it(plan, random):
    """For any turns, calls and tool batches (a batch's calls ending in any order): the
    activity names the turn being played, the model while a call is open (with the turn's
    call count), and exactly the tool calls open while any is."""
    watch = ActivityWatch()
    for number, calls in enumerate(plan, 1):
        watch.change(SpanOpened(TurnOpened(True, 20, number)))
        for count, batch in enumerate(calls, 1):
            watch.change(SpanOpened(LLM))
            assert watch.now == Activity(number, Waiting.MODEL, count, mcp=True)
            watch.change(SpanClosed(LLM))
            running = [tool(name, str(i)) for i, name in enumerate(batch)]
            for call in running:
                watch.change(SpanOpened(call))
            while running:
                call = running.pop(random.randrange(len(running)))
                watch.change(SpanClosed(call))
                assert watch.now is not None and watch.now.turn == number
                assert Counter(watch.now.tools) == Counter(c.tool_name for c in running)
                assert (watch.now.waiting is Waiting.TOOLS) == bool(running)
        watch.change(SpanUpdated(TurnDecided(len(calls), 0, "look", True)))
        assert watch.now is not None and watch.now.waiting is Waiting.GAME
        watch.change(SpanClosed(TurnOpened(True, 20, number)))
        watch.change(TurnEnded())
        assert watch.now == Activity(number + 1)
