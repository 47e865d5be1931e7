from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.text.inert import inert

UNSAFE = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]] + [
    "\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))
]  # fmt: skip


@given(st.text())
def test_no_character_a_terminal_acts_on_survives(text):
    shown = inert(text)
    assert not any(char in shown for char in UNSAFE)


@given(st.text(st.characters(blacklist_characters=UNSAFE)))
def test_text_with_nothing_to_act_on_is_unchanged(text):
    assert inert(text) == text


def test_escape_sequences_and_overrides_are_shown_as_their_codes():
    assert (
        inert("\x1b[2J\x1b]0;pwned\x07ok\r\n\tnext") == "\\x1b[2J\\x1b]0;pwned\\x07ok\\x0d\n\tnext"
    )
    assert inert("\x9b31m red") == "\\x9b31m red"
    assert inert("abc\u202edcba") == "abc\\u202edcba"
