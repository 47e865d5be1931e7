"""A model's command becomes one safe line for the Z-machine, and the agent hears what changed."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.game_command import (
    MAX_COMMAND_BYTES,
    CommandVerdict,
    notice_text,
    safe_command,
)

META = ["save", "restore", "script", "unscript", "quit", "q", "restart"]
MOVES = ["north", "open mailbox", "take leaflet", "read leaflet", "inventory", "look"]
commands = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(max_codepoint=0x1F), max_size=20),
    st.sampled_from(META + MOVES).map(str.upper),
    st.lists(st.sampled_from(META + MOVES), min_size=1, max_size=3).map(". ".join),
    st.text(min_size=150, max_size=600),
)


@given(commands)
def test_what_reaches_the_game_is_one_printable_ascii_line_within_the_buffer(raw):
    verdict = safe_command(raw)
    if verdict.command is not None:
        assert all(" " <= ch <= "~" and ch != "\\" for ch in verdict.command)
        assert len(verdict.command.encode()) <= MAX_COMMAND_BYTES
        assert verdict.command == verdict.command.strip()


@given(commands)
def test_a_safe_command_is_a_fixed_point(raw):
    verdict = safe_command(raw)
    if verdict.command is not None:
        assert safe_command(verdict.command) == CommandVerdict(verdict.command)


@given(commands)
def test_the_agent_is_told_whenever_its_command_was_changed(raw):
    verdict = safe_command(raw)
    if verdict.command is not None and verdict.command != " ".join(raw.split()):
        assert verdict.notice


@pytest.mark.parametrize(
    "raw",
    ["save", "SAVE", "restore", "script", "unscript", "north. save", "n then restore",
     "take lamp, script", " Save\x00 "],
)  # fmt: skip
def test_file_commands_are_refused_with_a_reason(raw):
    verdict = safe_command(raw, allow_quit_restart=True)
    assert verdict.refused and "never saved to or loaded from files" in verdict.notice


@pytest.mark.parametrize("raw", ["quit", "q", "Q", "restart", "north. quit", "look then restart"])
def test_quit_and_restart_are_refused_unless_allowed(raw):
    refused = safe_command(raw)
    assert refused.refused and "the episode decides when the game ends" in refused.notice
    assert safe_command(raw, allow_quit_restart=True).command == " ".join(raw.split())


def test_words_that_merely_contain_a_meta_verb_are_played():
    for raw in ["quiet", "unsaved", "take scripture", "say restart please"]:
        assert safe_command(raw).command == raw


def test_control_characters_and_non_ascii_are_replaced_and_said():
    verdict = safe_command("caf\u00e9 \u4e2d\x00north")
    assert verdict.command == "cafe north"
    assert "printable ASCII" in verdict.notice and "'cafe north'" in verdict.notice


def test_backslashes_never_reach_dumb_frotz_which_reads_them_as_escapes():
    assert safe_command("\\help").command == "help"
    assert safe_command("take \\o lamp").command == "take o lamp"


def test_only_the_first_line_is_used():
    verdict = safe_command("\n  open mailbox\nquit\n")
    assert verdict.command == "open mailbox"
    assert "first line" in verdict.notice


def test_a_long_command_is_cut_at_a_word_and_said():
    raw = " ".join(["take lamp"] * 60)
    verdict = safe_command(raw)
    assert len(verdict.command) <= MAX_COMMAND_BYTES and raw.startswith(verdict.command)
    assert raw[len(verdict.command)] == " ", "cut between words"
    assert f"cut to {MAX_COMMAND_BYTES}" in verdict.notice


def test_the_notice_goes_before_the_game_text():
    verdict = safe_command("north\x07")
    assert notice_text(verdict, "North of House") == f"[{verdict.notice}]\nNorth of House"
    assert notice_text(safe_command("north"), "North of House") == "North of House"
