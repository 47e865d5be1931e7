"""The lines `show` and episode.log tell an episode in: the game's answer whole, or folded
saying how much is left; the state after a turn with the score's change; a tool's result cut
with its whole size; and nothing a terminal would act on, whatever the text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.episode.episode_text import (
    ANSWER_CHARS,
    ANSWER_LINES,
    PREVIEW_CHARS,
    answer_lines,
    cost_line,
    cost_short,
    cost_words,
    dollars,
    outcome_lines,
    result_line,
    result_size,
    resumed_line,
    state_line,
)
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.llm.budget import dollars as budget_dollars
from zork_mcp.domain.llm.messages import CostParts, Usage

UNSAFE = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]] + [
    "\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))
]  # fmt: skip


def test_an_answer_is_shown_whole_each_line_quoted():
    answer = "West of House\nYou are standing in an open field.\n\n  There is a mailbox here.\n"
    assert answer_lines(answer) == [
        "| West of House", "| You are standing in an open field.", "|",
        "|   There is a mailbox here.",
    ]  # fmt: skip


def test_a_long_answer_is_folded_saying_how_much_is_left():
    many = "\n".join(f"line {n}" for n in range(100))
    lines = answer_lines(many)
    assert lines[:ANSWER_LINES] == [f"| line {n}" for n in range(ANSWER_LINES)]
    left = len(many) - len("\n".join(f"line {n}" for n in range(ANSWER_LINES)))
    assert lines[ANSWER_LINES:] == [f"| [... {left:,} more characters of the answer]"]
    wide = answer_lines("x" * 10_000)
    assert wide == ["| " + "x" * ANSWER_CHARS, "| [... 7,000 more characters of the answer]"]


def test_an_answer_the_log_does_not_hold_says_so():
    assert answer_lines("") == answer_lines("\n\n") == ["| (no answer in the log)"]


def test_the_state_after_a_turn_gives_the_scores_change_when_the_score_before_is_known():
    facts = TurnFacts(14, 25, 14, 0, room="Forest")
    assert state_line(facts, 35) == "score 25 (-10), moves 14, now in Forest"
    assert state_line(facts, 20) == "score 25 (+5), moves 14, now in Forest"
    assert state_line(facts, 25) == state_line(facts, None) == "score 25, moves 14, now in Forest"
    assert state_line(TurnFacts(1, 0, 1, 0), 0) == "score 0, moves 1, room unknown"


def test_a_death_is_called_out_between_the_answer_and_the_state():
    facts = TurnFacts(3, 0, 3, 0, room="Forest", died=True)
    assert outcome_lines(facts, "    ****  You have died  ****", 10) == [
        "|     ****  You have died  ****", "** died **", "score 0 (-10), moves 3, now in Forest"
    ]  # fmt: skip


def test_a_tool_result_is_cut_to_a_preview_that_states_its_whole_size():
    line = result_line("ok", 12_345, '{\n "thought":\n  "' + "a" * 1000 + '"}')
    assert line.startswith('-> ok (12,345 chars): { "thought": "aaa') and line.endswith("...")
    assert len(line) == len("-> ok (12,345 chars): ") + PREVIEW_CHARS
    assert result_line("timeout", None, "") == "-> timeout"
    assert result_size(False, 111, "{...}") == 111 and result_size(False, None, "x") is None
    assert result_size(True, 4, "server 'box' failed") == len("server 'box' failed")


def test_the_resume_mark_says_after_which_turn_and_any_new_turn_limit():
    assert resumed_line(12) == "— resumed after turn 12 —"
    assert resumed_line(50, 100) == "— resumed after turn 50, now to 100 turns —"


@given(text=st.text(), room=st.text(), size=st.none() | st.integers(0, 10**9))
def test_no_line_holds_a_character_a_terminal_acts_on_nor_a_line_break(text, room, size):
    facts = TurnFacts(1, 0, 1, 0, room=room, died=True)
    lines = [*outcome_lines(facts, text, None), result_line(text, size, text)]
    assert not any(char in line for line in lines for char in [*UNSAFE, "\n"])


def test_an_episodes_cost_line_says_its_parts_or_why_it_has_none():
    parts = CostParts(0.03, 0.001, 0.0005, 0.0111)
    priced = Usage(1000, 100, 500, cost_usd=parts.total, cost_parts=parts)
    assert cost_line(priced) == (
        "cost $0.0426: input $0.0300, cached input $0.0010, cache writes $0.0005, output $0.0111"
    )
    assert cost_line(Usage(1, 1, cost_usd=1.5)) == "cost $1.5000 (as the provider reported it)"
    assert cost_line(Usage(1, 1, unpriced="no price for x")) == "cost: unpriced (no price for x)"
    assert cost_line(Usage(1, 1)) == "cost: unpriced (no price was reported)"


def test_an_episode_with_no_token_used_cost_nothing_rather_than_being_unpriced():
    """Issue 67: an episode its budget stopped before its first call said `unpriced (no
    price was reported)`; it spent $0."""
    assert cost_line(Usage()) == "cost $0.0000 (no tokens used)"
    assert cost_words(Usage()) == "$0.0000 (no tokens used)" and cost_short(Usage()) == "$0.0000"


def test_the_short_cost_of_a_status_line_is_dollars_or_unpriced():
    assert cost_short(Usage(1, 1, cost_usd=0.0123)) == "$0.0123"
    assert cost_short(Usage(1, 1, unpriced="local")) == "unpriced"
    assert cost_short(Usage(1, 1)) == "unpriced"  # no price reported
    assert cost_short(Usage(1, 1, cost_usd=0.5, unpriced="one call")) == "$0.5000 (some unpriced)"


def test_every_dollar_amount_has_four_decimals_and_a_tiny_cost_is_never_shown_as_zero():
    """Issue 67: the screen mixed `$1.57` and `$0.7243`, the log `$0.000123`."""
    assert dollars(0.7243) == "$0.7243" and dollars(1.57) == "$1.5700"
    assert dollars(1234.5) == "$1,234.5000" and dollars(0.0) == "$0.0000"
    assert dollars(0.0000042) == "<$0.0001" and dollars(0.00005) == "$0.0001"
    assert budget_dollars is dollars, "the budget's messages and the logs write dollars alike"
