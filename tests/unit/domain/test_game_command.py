"""A model's command becomes one safe line for the Z-machine, judged on the words the game
will read (Zork I's own dictionary, separators and buffer), and the agent hears what changed."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import ROOT
from tests.support.story_files import Word, story
from zork_mcp.adapters.game.jericho import find_game_file, load_lexicon
from zork_mcp.domain.game.game_command import (
    CommandRules,
    CommandVerdict,
    notice_text,
    safe_command,
)
from zork_mcp.domain.game.story_file import read_lexicon

ZORK = load_lexicon(find_game_file(base=ROOT))
RULES = CommandRules.for_game(ZORK)
ALLOWING = CommandRules.for_game(ZORK, allow_quit_restart=True)
LIMIT = ZORK.input_limit

META = ["save", "restore", "script", "unscript", "quit", "q", "restart", "#record", "#comm"]
MOVES = ["north", "open mailbox", "take leaflet", "read leaflet", "inventory", "look"]
commands = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(max_codepoint=0x1F), max_size=20),
    st.sampled_from(META + MOVES).map(str.upper),
    st.lists(st.sampled_from(META + MOVES), min_size=1, max_size=3).map(". ".join),
    st.text(min_size=100, max_size=600),
)


def test_zork_reads_119_letters_and_breaks_words_at_its_three_separators():
    assert (ZORK.version, ZORK.input_limit, len(ZORK.entries)) == (3, 119, 684)
    assert ZORK.separators == frozenset('.,"')


@given(commands)
def test_what_reaches_the_game_is_one_printable_ascii_line_within_its_buffer(raw):
    verdict = safe_command(raw, RULES)
    if verdict.command is not None:
        assert all(" " <= ch <= "~" and ch != "\\" for ch in verdict.command)
        assert len(verdict.command.encode()) <= LIMIT
        assert verdict.command == verdict.command.strip()


@given(commands)
def test_a_safe_command_is_a_fixed_point(raw):
    verdict = safe_command(raw, RULES)
    if verdict.command is not None:
        assert safe_command(verdict.command, RULES) == CommandVerdict(verdict.command)


@given(commands)
def test_the_agent_is_told_whenever_its_command_was_changed(raw):
    verdict = safe_command(raw, RULES)
    if verdict.command is not None and verdict.command != " ".join(raw.split()):
        assert verdict.notice


@pytest.mark.parametrize(
    "raw",
    ["save", "SAVE", "restore", "script", "unscript", "north. save", "n then restore",
     "take lamp, script", " Save\x00 ", "scripting", "unscri", "restoring", "the save",
     "n and restore"],
)  # fmt: skip
def test_file_commands_are_refused_as_the_game_would_read_them(raw):
    verdict = safe_command(raw, ALLOWING)
    assert verdict.refused and "never saved to or loaded from files" in verdict.notice


@pytest.mark.parametrize(
    "raw",
    ["quit", "q", "Q", "restart", "north. quit", "look then restart", "restarting", "restar",
     'quit"', 'wait"restart', "the quit", "n and quit", "take all and quit", "oops quit",
     "take quit", "say restart please"],
)  # fmt: skip
def test_quit_and_restart_are_refused_in_any_position_unless_allowed(raw):
    refused = safe_command(raw, RULES)
    assert refused.refused and "the episode decides when the game ends" in refused.notice
    assert safe_command(raw, ALLOWING).command == " ".join(raw.split())


def test_a_refusal_says_which_verb_the_game_would_have_read():
    assert "the game reads 'q' as 'quit'" in safe_command("q", RULES).notice
    assert "'restarting' as 'restart'" in safe_command("restarting", RULES).notice


@pytest.mark.parametrize(
    "raw",
    ["#record", "#comm", "#command", "#unrecord", "#random 5", "$verify", "#RECORD",
     "#comm. " + "a" * 33, "#record. " + "b" * 30, "north. #comm"],
)  # fmt: skip
def test_the_interpreters_own_commands_never_reach_it(raw):
    verdict = safe_command(raw, ALLOWING)
    assert verdict.refused and "interpreter" in verdict.notice


def test_words_the_game_reads_as_other_words_are_played():
    for raw in ["quiet", "unsaved", "saves", "quitting", "take leaflet", "again", "g", "yes"]:
        assert safe_command(raw, RULES).command == raw


def test_every_synonym_of_a_refused_verb_is_refused():
    """Synonyms share their dictionary data; any word whose data is quit's is quit."""
    quit_data = ZORK.entries[ZORK.key("quit")]
    synonyms = [key for key, data in ZORK.entries.items() if data == quit_data]
    assert len(synonyms) == 2  # quit and q
    assert all(RULES.refused[key][0] == "quit" for key in synonyms)


def test_control_characters_and_non_ascii_are_replaced_and_said():
    verdict = safe_command("caf\u00e9 \u4e2d\x00north", RULES)
    assert verdict.command == "cafe north"
    assert "printable ASCII" in verdict.notice and "'cafe north'" in verdict.notice


def test_a_lone_surrogate_never_reaches_the_game_nor_the_notice():
    verdict = safe_command("\ud800open mailbox", RULES)
    assert verdict.command == "open mailbox"
    verdict.notice.encode("utf-8")
    assert safe_command("\ud800quit", RULES).refused


def test_backslashes_never_reach_dumb_frotz_which_reads_them_as_escapes():
    assert safe_command("\\help", RULES).command == "help"
    assert safe_command("take \\o lamp", RULES).command == "take o lamp"


def test_only_the_first_line_is_used():
    verdict = safe_command("\n  open mailbox\nquit\n", RULES)
    assert verdict.command == "open mailbox"
    assert "first line" in verdict.notice


def test_a_long_command_is_cut_at_a_word_to_the_games_buffer_and_said():
    raw = " ".join(["take lamp"] * 60)
    verdict = safe_command(raw, RULES)
    assert len(verdict.command) <= LIMIT and raw.startswith(verdict.command)
    assert raw[len(verdict.command)] == " ", "cut between words"
    assert f"cut to {LIMIT}" in verdict.notice


def test_a_refused_word_past_the_cut_does_not_refuse_what_the_game_reads():
    raw = "take lamp " * 12 + "quit"
    verdict = safe_command(raw, RULES)
    assert verdict.command is not None and "quit" not in verdict.command


def test_the_notice_goes_before_the_game_text():
    verdict = safe_command("north\x07", RULES)
    assert notice_text(verdict, "North of House") == f"[{verdict.notice}]\nNorth of House"
    assert notice_text(safe_command("north", RULES), "North of House") == "North of House"


# Synthetic story files (tests/support/story_files.py): the rule on the words a game of any
# version reads, its own dictionary, synonyms, debugging words and buffer.

REFUSED_VERBS = ["save", "restore", "script", "unscript", "quit", "restart"]


def rules_for(version: int, words, *, letters: int = 40, **options) -> CommandRules:
    lexicon = read_lexicon(story(version, words, letters=letters))
    return CommandRules.for_game(lexicon, **options)


@pytest.mark.parametrize("version", [3, 4, 5, 8])
def test_the_refused_verbs_are_refused_even_where_the_dictionary_lacks_them(version):
    rules = rules_for(version, ["north", "take", "lamp"])
    assert all(safe_command(verb, rules).refused for verb in REFUSED_VERBS)
    assert not safe_command("take lamp", rules).refused
    allowing = rules_for(version, ["north"], allow_quit_restart=True)
    played = [verb for verb in REFUSED_VERBS if not safe_command(verb, allowing).refused]
    assert played == ["quit", "restart"]


@pytest.mark.parametrize(("version", "refused"), [(3, True), (4, False), (5, False), (8, False)])
def test_a_verb_is_refused_at_the_resolution_of_the_games_version(version, refused):
    """Six Z-characters in versions 1-3, nine later (S 3.7): 'restarting' is 'restar' in
    a version 3 game, and a word of its own, unknown, from version 4."""
    rules = rules_for(version, ["restart", "unscript", "inventory"])
    assert safe_command("restarting", rules).refused == refused
    assert safe_command("unscripted", rules).refused == refused
    assert safe_command("restartin", rules).refused == refused


def test_a_synonym_is_refused_by_its_data_and_the_notice_names_its_verb():
    quit_data, other = b"\x01\x00\x00", b"\x02\x00\x00"
    rules = rules_for(5, [Word("quit", quit_data), Word("bye", quit_data), Word("byebye", other)])
    assert safe_command("bye", rules).notice == (
        "The command 'quit' is not available (the game reads 'bye' as 'quit'): the episode "
        "decides when the game ends. Play on with a game command."
    )
    assert safe_command("Quit", rules).notice == (
        "The command 'quit' is not available: the episode decides when the game ends. "
        "Play on with a game command."
    )
    assert safe_command("byebye", rules) == CommandVerdict("byebye")


@pytest.mark.parametrize(
    ("word", "refused"),
    [("#record", True), ("$verify", True), ("#", True), ("#a", True), ("$", True),
     ("@home", False), ("%x", False), ("0record", False), ("record", False)],
)  # fmt: skip
def test_a_dictionary_word_starting_with_a_hash_or_a_dollar_is_the_interpreters(word, refused):
    rules = rules_for(5, [word, "record"])
    assert safe_command(word.upper(), rules).refused == refused
    assert not safe_command("#unknown", rules).refused, "a word the game does not know"


def test_an_interpreters_word_is_refused_by_its_own_name():
    rules = rules_for(3, ["#record", "#comm"])
    assert safe_command("#RECORD foo", rules).notice == (
        "The command '#record' is not available: it is the interpreter's debugging command, "
        "not the game's (it opens files). Play on with a game command."
    )
    assert "The command '#command' is not available:" in safe_command("#command", rules).notice


def test_a_file_verb_is_refused_with_the_reason_the_agent_reads():
    assert safe_command("unscri", rules_for(3, ["unscript"])).notice == (
        "The command 'unscript' is not available (the game reads 'unscri' as 'unscript'): "
        "this game is never saved to or loaded from files, nor transcribed. "
        "Play on with a game command."
    )


def test_a_command_that_fills_the_buffer_is_typed_whole_and_a_longer_one_is_cut_at_a_word():
    rules = rules_for(5, ["take", "lamp"], letters=20)
    assert safe_command("take lamp take lampx", rules) == CommandVerdict("take lamp take lampx")
    assert safe_command("take lamp take lamp x", rules) == CommandVerdict(
        "take lamp take lamp",
        "Your command was cut to 20 characters, the game's input limit: 'take lamp take lamp'.",
    )
    assert safe_command("x" * 25, rules).command == "x" * 20, "one long word is cut in it"


def test_every_change_is_told_in_one_notice_in_the_order_it_was_made():
    rules = rules_for(5, ["north"], letters=20)
    assert safe_command("north\x07\nsouth", rules).notice == (
        "Only the first line of your command was used. Your command was changed to printable "
        "ASCII: 'north' (the game reads letters, digits and punctuation other than backslash "
        "only)."
    )
    assert safe_command("\x00\x01", rules) == CommandVerdict(
        "",
        "Your command was changed to printable ASCII: '' (the game reads letters, digits and "
        "punctuation other than backslash only). Nothing of your command was left to type.",
    )


def test_a_notice_without_game_text_is_the_notice_alone():
    verdict = CommandVerdict("north", "Only the first line of your command was used.")
    assert notice_text(verdict, "") == "[Only the first line of your command was used.]"
    assert notice_text(CommandVerdict("north"), "") == ""
