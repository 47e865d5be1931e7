"""The story file read as the interpreter reads it: word encoding, dictionary, separators,
and the text buffer of the game's read instructions."""

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import ROOT
from zork_mcp.adapters.game.jericho import find_game_file
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.story_file import GameLexicon, encode_word, read_lexicon

STORY = find_game_file(base=ROOT).read_bytes()
ZORK = read_lexicon(STORY)


def test_every_word_of_jerichos_dictionary_resolves_to_its_own_entry():
    """Jericho decodes the dictionary with its own tools: our encoder must agree on all 684."""
    from jericho import FrotzEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = FrotzEnv(str(find_game_file(base=ROOT)), seed=12)
    try:
        words = [word.word.decode() if isinstance(word.word, bytes) else str(word.word)
                 for word in env.get_dictionary()]  # fmt: skip
    finally:
        env.close()
    assert len(words) == len(ZORK.entries)
    assert {ZORK.key(word) for word in words} == set(ZORK.entries)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=6, max_size=20))
def test_letters_past_the_sixth_are_not_read(word):
    assert encode_word(word) == encode_word(word[:6])


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz#$.0123456789", min_size=1, max_size=12))
def test_an_encoded_word_is_two_zwords_with_the_end_bit_on_the_last(word):
    key = encode_word(word)
    assert len(key) == 4 and not key[0] & 0x80 and key[2] & 0x80


def test_punctuation_costs_two_zchars_and_other_characters_four():
    assert ZORK.entry("#command") == ZORK.key("#comm")  # '#' is in alphabet A2
    assert ZORK.entry("$verify") == ZORK.key("$ve")  # '$' is a ten-bit escape


@given(st.text(alphabet='ab .,"', max_size=30))
def test_words_are_broken_at_spaces_and_separators_which_are_words_themselves(line):
    words = ZORK.words(line)
    assert "".join(words) == line.replace(" ", "")
    assert all(" " not in word for word in words)
    assert all(len(word) == 1 for word in words if set(word) & set('.,"'))


def test_a_buffer_of_the_games_own_read_instructions_sets_the_limit():
    assert ZORK.input_limit == 119  # Zork I's text buffer holds 120 bytes, less one


@pytest.mark.parametrize(
    ("story", "what"),
    [(b"", "first byte"), (b"\x01" + bytes(100), "version 3 to 8"), (STORY[:0x38A0], "truncated")],
)
def test_a_file_that_is_no_readable_story_is_a_configuration_error(story, what):
    with pytest.raises(ConfigurationError, match=what):
        read_lexicon(story)


def test_a_stand_in_lexicon_shares_data_between_the_words_given_the_same_data():
    lexicon = GameLexicon.from_words(["northeast", ("quit", b"\x01"), ("q", b"\x01")])
    assert lexicon.entries[lexicon.key("q")] == lexicon.entries[lexicon.key("quit")]
    assert lexicon.entry("northeastern") == lexicon.key("northeast")


def test_typed_text_is_encoded_in_lower_case_and_beyond_zscii_as_a_question_mark():
    """An interpreter types a character with no ZSCII code as '?' (S 3.8), which A2 holds."""
    assert encode_word("NoRTH") == encode_word("north")
    assert encode_word("\u0400") == encode_word("?") == encode_word("?", 6)
    assert encode_word("\u03df") != encode_word("?")  # 991: still a ten-bit code
