"""The game on screen (issue 46): each turn's transcript as plain lines, fit for a log: the
command, the game's answer (a long one folded), score changes, deaths, tool calls with a
short result; the model's retries while they wait; nothing the game, the model or a server
wrote acts on the terminal."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

from rich.console import Console

from zork_mcp.app.orchestrator import TurnReport
from zork_mcp.app.progress import LiveProgress, PlainProgress, RetryNotices, print_summary
from zork_mcp.builders.llm import RetryNotice
from zork_mcp.domain.episode.episode import EpisodeSummary
from zork_mcp.domain.episode.episode_state import EpisodeState, Place, PlayedTurn
from zork_mcp.domain.episode.turn_facts import TurnFacts, tool_uses
from zork_mcp.domain.facts.activity import (
    ActivityWatch,
    SpanClosed,
    SpanOpened,
    SpanUpdated,
    TurnEnded,
)
from zork_mcp.domain.facts.mcp_state import TURN_ON, McpState
from zork_mcp.domain.facts.span_facts import LLMCalled, ToolCalled, TurnDecided, TurnOpened
from zork_mcp.domain.game.game import GameObservation
from zork_mcp.domain.llm.messages import CostParts, Usage
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.loop.loop_records import ToolCallRecord
from zork_mcp.domain.servers.connection import ConnectResult, ServerConnections
from zork_mcp.domain.tools.tool_result import ToolCallResult

HOSTILE = "\x1b]0;PWNED\x07\x1b[2J[bold]loud[/bold]"
DEATH = (
    "Oh, no! A lurking grue slithered into the room and devoured you!\n \n"
    "    ****  You have died  **** \n\n"
    "Now, let's take a look here... Well, you probably deserve another chance.\n\n"
    "Forest\nThis is a forest, with trees in all directions."
)


def call(name: str, result: ToolCallResult, **arguments: Any) -> ToolCallRecord:
    outcome = CallOutcome.TOOL_ERROR if result.is_error else CallOutcome.SUCCEEDED
    return ToolCallRecord(1, f"c-{name}", name, arguments, outcome, result)


def report(
    turn: int,
    action: str,
    text: str,
    score: int,
    room: str,
    *,
    died: bool = False,
    calls: tuple[ToolCallRecord, ...] = (),
    known: bool = True,
) -> TurnReport:
    """`known`: the report carries the calls themselves, not only their counts."""
    observation = GameObservation(text, room=room, score=score, moves=turn)
    tools = tool_uses((c.tool_name, 1, int(c.result.is_error)) for c in calls)
    facts = TurnFacts(turn, score, turn, len(calls), room=room, died=died, tools=tools)
    return TurnReport(action, observation, Usage(100, 20), facts, calls=calls if known else ())


OPENING = EpisodeState(EpisodeSummary("e"), opening="West of House\nA mailbox.")


def plain_lines(play, state: EpisodeState = OPENING) -> list[str]:
    out = io.StringIO()
    display = PlainProgress(Console(file=out, width=40))
    display.begin(state)
    play(display)
    display.close()
    return out.getvalue().splitlines()[4:]  # after the opening, MCP's state and the wait


def test_a_turn_shows_its_tool_calls_command_answer_and_score_gain():
    thought = call("reasoning.think", ToolCallResult.success("plan: go in"), thought="x" * 200)
    played = report(1, "enter", "Kitchen\nA table.", 10, "Kitchen", calls=(thought,))

    def play(display):
        display.turn(played, EpisodeSummary("e", tool_calls=1, usage=Usage(100, 20)))

    assert plain_lines(play) == [
        "",
        'tool reasoning.think {"thought": "' + "x" * 46 + "… → plan: go in",
        "> enter",
        "Kitchen",
        "A table.",
        "+10 points (10)",
        "turn 1 | Kitchen | score 10 | moves 1 | tools 1 | tokens 120 | unpriced | > enter",
    ]


def test_a_death_shows_the_loss_and_the_reincarnation():
    def play(display):
        display.turn(report(1, "down", "Cellar", 35, "Cellar"), EpisodeSummary("e"))
        display.turn(report(2, "north", DEATH, 25, "Forest", died=True), EpisodeSummary("e"))

    lines = plain_lines(play)
    assert "+35 points (35)" in lines
    assert lines[-3:] == [
        "−10 points (25)",
        "died (death 1): reincarnated in Forest",
        "turn 2 | Forest | score 25 | moves 2 | tools 0 | tokens 0 | $0.0000 | > north",
    ]
    assert "    ****  You have died  ****" in lines


def test_a_failed_tool_call_says_so_and_its_error_stays_inert():
    failed = call("esc.broken", ToolCallResult.failure(f"boom {HOSTILE}"))

    def play(display):
        display.turn(report(1, "look", "West of House", 0, "West of House", calls=(failed,)),
                     EpisodeSummary("e"))  # fmt: skip

    lines = plain_lines(play)
    assert lines[1] == r"tool esc.broken {} failed: boom \x1b]0;PWNED\x07\x1b[2J[bold]loud[/bold]"


def test_without_the_agents_calls_each_tool_is_a_line_of_counts():
    calls = (call("a.x", ToolCallResult.success(1)), call("a.x", ToolCallResult.failure("no")))

    def play(display):  # only the counts are known
        display.turn(report(1, "look", "Here", 0, "Here", calls=calls, known=False),
                     EpisodeSummary("e"))  # fmt: skip

    assert plain_lines(play)[1] == "tool a.x ×2, 1 failed"


def test_a_long_answer_is_folded_after_twelve_lines():
    answer = "\n".join(f"line {n}" for n in range(1, 31))

    def play(display):
        display.turn(report(1, "read leaflet", answer, 0, "West of House"), EpisodeSummary("e"))

    lines = plain_lines(play)
    assert lines[2:15] == [*(f"line {n}" for n in range(1, 13)), "… (18 more lines)"]


def test_game_model_and_server_text_stays_inert_and_no_markup_is_read():
    hostile = call("esc.banner", ToolCallResult.success(HOSTILE), text=HOSTILE)
    played = report(1, f"look{HOSTILE}", f"Room\n{HOSTILE}", 0, f"Hall{HOSTILE}", calls=(hostile,))

    def play(display):
        display.turn(played, EpisodeSummary("e"))

    out = "\n".join(plain_lines(play))
    assert "\x1b" not in out and "\x07" not in out
    # the result, the command, the answer, and the status line's room and command
    assert out.count(r"\x1b]0;PWNED\x07\x1b[2J[bold]loud[/bold]") == 5
    assert r'{"text": "\u001b]0;PWNED\u0007\u001b[2J[bold]loud[/bold]"}' in out  # as JSON


def test_a_retry_is_a_line_while_it_waits():
    notices = RetryNotices()
    out = io.StringIO()
    display = PlainProgress(Console(file=out, width=40))
    display.begin(EpisodeState(EpisodeSummary("e")))
    notices.listen(display.retrying)
    notices.tell(RetryNotice("openrouter", 2, 4, "HTTP 429 rate limited: \x1b[2Jslow", 2.04))
    notices.listen(None)
    notices.tell(RetryNotice("openrouter", 3, 4, "gone", 1))  # no display listens: dropped
    assert out.getvalue().splitlines()[-2:] == [
        "waiting for the model…",
        r"waiting for the model… (attempt 2 of 4: HTTP 429 rate limited: \x1b[2Jslow, "
        "retrying in 2 s)",
    ]


def test_the_live_line_counts_the_wait_then_shows_the_retry_then_the_status():
    now = [100.0]
    out = io.StringIO()
    display = LiveProgress(Console(file=out, force_terminal=True, width=100), clock=lambda: now[0])
    try:
        display.begin(OPENING)
        now[0] += 7
        assert display.live_text().plain == "waiting for the model… 7 s"
        display.retrying(
            RetryNotice("openrouter", 2, 4, "could not be reached (ConnectError)", 1.3)
        )
        assert display.live_text().plain == (
            "waiting for the model… (attempt 2 of 4: could not be reached (ConnectError), "
            "retrying in 1.3 s)"
        )
        display.turn(report(1, "north", "North of House", 0, "North of House"),
                     EpisodeSummary("e"))  # fmt: skip
        assert display.live_text().plain.startswith("turn 1 | North of House | score 0")
    finally:
        display.close()
    assert "> north" in out.getvalue()


LOCAL = "a local or self-hosted server: no price list knows what its model costs"


def test_each_turns_line_says_what_the_episode_has_cost_or_that_it_is_unpriced_and_why():
    """Issue 67: the terminal showed tokens only, even for a priced model."""
    priced = EpisodeSummary("e", usage=Usage(100, 20, cost_usd=0.0123))

    def play(display):
        display.turn(report(1, "north", "North of House", 0, "North of House"), priced)

    assert plain_lines(play)[-1] == (
        "turn 1 | North of House | score 0 | moves 1 | tools 0 | tokens 120 | $0.0123 | > north"
    )
    local = Usage(100, 20, unpriced=LOCAL)

    def play_local(display):
        for turn, command in ((1, "north"), (2, "east")):
            played = replace(report(turn, command, "Here", 0, "Here"), usage=local)
            display.turn(played, EpisodeSummary("e", usage=local))

    lines = plain_lines(play_local)
    assert lines.count(f"cost unpriced: {LOCAL}") == 1, "why, once"
    assert lines[-1].endswith("| tokens 120 | unpriced | > east")


def test_the_summary_says_the_cost_or_why_there_is_none():
    """Issue 67: the end table showed tokens only; an episode its budget stopped before its
    first call is $0.0000, not unpriced."""
    parts = CostParts(0.03, 0.001, 0.0005, 0.0111)
    usages = {
        "priced": Usage(1000, 100, cost_usd=parts.total, cost_parts=parts),
        "local": Usage(1000, 100, unpriced=LOCAL),
        "none": Usage(),
    }
    said = {}
    for name, usage in usages.items():
        out = io.StringIO()
        print_summary(Console(file=out, width=200), EpisodeSummary("e", usage=usage), "logs/e")
        said[name] = next(line for line in out.getvalue().splitlines() if "│ cost " in line)
    assert "│ cost       │ $0.0426: input $0.0300, cached input $0.0010, cache writes $0.0005, " \
        "output $0.0111 │" in said["priced"]  # fmt: skip
    assert f"│ cost       │ unpriced ({LOCAL}) │" in said["local"]
    assert "│ cost       │ $0.0000 (no tokens used) │" in said["none"]


def test_the_summary_reads_no_markup():
    out = io.StringIO()
    summary = EpisodeSummary("e[bold]1", room="[red]Hall\x1b[2J")
    print_summary(Console(file=out, width=80), summary, "logs/e")
    assert r"[red]Hall\x1b[2J" in out.getvalue() and "e[bold]1" in out.getvalue()


def test_the_opening_is_shown_and_a_resumed_episode_says_where_it_goes_on():
    out = io.StringIO()
    PlainProgress(Console(file=out, width=60)).begin(OPENING)
    assert out.getvalue().splitlines() == [
        "West of House",
        "A mailbox.",
        f"MCP off; {TURN_ON}",
        "waiting for the model…",
    ]
    cellar = PlayedTurn(30, "down", "Cellar\nDark.", Place("Cellar"))
    resumed = EpisodeState(EpisodeSummary("e", turns=30, score=35), turns=[cellar])

    def play(display):
        display.turn(report(31, "north", "Troll Room", 35, "Troll Room"), EpisodeSummary("e"))

    out = io.StringIO()
    display = PlainProgress(Console(file=out, width=60))
    display.begin(resumed)
    play(display)
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["— resumed after turn 30, score 35 —", "Cellar", "Dark."]
    assert not any("points" in line for line in lines)  # the score it resumed at is known


def test_the_live_line_says_which_servers_start_then_counts_the_models_wait_afresh():
    """Issue 55: a first `npx` run took 9 s while the line blamed the model."""
    now = [100.0]
    connections = ServerConnections.of(["memory", "reasoning"])
    state = EpisodeState(EpisodeSummary("e"), opening="West of House", connections=connections)
    display = LiveProgress(Console(file=io.StringIO(), force_terminal=True), clock=lambda: now[0])
    try:
        now[0] += 2
        assert display.live_text().plain == "starting the episode… 2 s"
        display.begin(state)
        now[0] += 9
        assert display.live_text().plain == "starting MCP servers memory, reasoning… 9 s"
        connections["memory"].record(ConnectResult.SUCCEEDED)
        assert display.live_text().plain == "starting MCP server reasoning… 0 s"
        now[0] += 1
        connections["reasoning"].record(ConnectResult.SUCCEEDED)
        now[0] += 3
        assert display.live_text().plain == "waiting for the model… 0 s"
        now[0] += 4
        assert display.live_text().plain == "waiting for the model… 4 s"
    finally:
        display.close()


def test_plain_lines_say_the_servers_start_before_the_model_is_waited_for():
    out = io.StringIO()
    state = EpisodeState(EpisodeSummary("e"), connections=ServerConnections.of(["memory"]))
    PlainProgress(Console(file=out, width=100)).begin(state)
    assert out.getvalue().splitlines()[-1] == (
        "starting MCP server memory, then waiting for the model…"
    )


def test_the_start_says_whether_mcp_is_on_and_how_to_change_it():
    """Issue 55: run where no pyproject turned it on, MCP was off and nothing said so."""
    out = io.StringIO()
    on = EpisodeState(EpisodeSummary("e"), connections=ServerConnections.of(["memory", "think"]))
    PlainProgress(Console(file=out, width=200)).begin(on)
    PlainProgress(Console(file=out, width=200)).begin(EpisodeState(EpisodeSummary("e")))
    assert [line for line in out.getvalue().splitlines() if line] == [
        "MCP on: servers memory, think; --no-mcp to play without them",
        "starting MCP servers memory, think, then waiting for the model…",
        "MCP off; --mcp, or --config naming a pyproject with [tool.zorkgpt.mcp] enabled = true, "
        "turns it on",
        "waiting for the model…",
    ]
    off = McpState(False, off_because="no pyproject.toml here")
    assert off.line().startswith("MCP off: no pyproject.toml here; --mcp, or --config")
    said = io.StringIO()  # the screen says why, as the log does
    PlainProgress(Console(file=said, width=200), off).begin(EpisodeState(EpisodeSummary("e")))
    assert next(line for line in said.getvalue().splitlines() if line) == off.line()
    chosen = McpState(True, ("reasoning",), "mcp_config.json")
    assert chosen.line() == (
        "MCP on: server reasoning from mcp_config.json; --no-mcp to play without them"
    )


def test_the_live_line_says_what_each_turn_waits_for_and_since_when():
    """Issue 67: after turn 1 the live line kept the last turn's status while the model was
    waited for (3.6 s a turn with npx servers), with no sign of it."""
    now, watch = [100.0], ActivityWatch()
    state = EpisodeState(EpisodeSummary("e"), connections=ServerConnections.of(["memory"]))
    out = io.StringIO()
    display = LiveProgress(Console(file=out, force_terminal=True, width=100),
                           clock=lambda: now[0], activity=watch)  # fmt: skip
    status = "turn 1 | North of House | score 0 | moves 1 | tools 0 | tokens 0 | $0.0000 | > n"

    def shown(change: object = None, wait: float = 0) -> list[str]:
        if change is not None:
            watch.change(change)
            display.live_text()  # the live region's refresh, 4 times a second
        now[0] += wait
        return display.live_text().plain.splitlines()

    try:
        display.begin(state)
        state.connections["memory"].record(ConnectResult.SUCCEEDED)
        watch.change(TurnEnded())
        display.turn(report(1, "n", "North of House", 0, "North of House"), EpisodeSummary("e"))
        assert shown(SpanOpened(TurnOpened(True, 20, 2)), 3) == [
            status, "turn 2: starting MCP server memory… 3 s"]  # fmt: skip
        llm = LLMCalled("m", 2, None, forced_final=False)
        assert shown(SpanOpened(llm), 2)[1] == "turn 2: waiting for the model… 2 s"
        tool = ToolCalled("memory", 30, "memory.get_map", "c1")
        shown(SpanClosed(llm))
        assert shown(SpanOpened(tool), 1)[1] == "turn 2: waiting for tool memory.get_map… 1 s"
        shown(SpanClosed(tool))
        assert shown(SpanOpened(llm), 4)[1] == "turn 2: waiting for the model (call 2)… 4 s"
        display.retrying(RetryNotice("openrouter", 2, 4, "HTTP 429", 1))
        assert shown()[1].startswith("waiting for the model… (attempt 2 of 4: HTTP 429")
        assert shown(SpanClosed(llm))[1] == (
            "turn 2: the model answered; closing the MCP session… 0 s"
        ), "the retry is over once its call is answered"
        decided = TurnDecided(2, 1, "east\x1b[2J", tools_offered=True)
        assert shown(SpanUpdated(decided), 1)[1] == (
            r"turn 2: waiting for the game: > east\x1b[2J… 1 s"
        )
    finally:
        display.close()
