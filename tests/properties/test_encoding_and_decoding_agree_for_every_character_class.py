"""The reader's encoder and its decoder of a word's first character agree with each other
and with the Z-Machine Standard, whatever class of character a word starts with."""

from hypothesis import given
from hypothesis import strategies as st

from tests.support.story_files import CHARACTER_CLASSES, as_read, dictionary_zchars, pack, story
from zork_mcp.domain.game.story_file import decode_start, encode_word, read_lexicon

characters = st.sampled_from(sorted(CHARACTER_CLASSES)).flatmap(
    lambda name: st.sampled_from(CHARACTER_CLASSES[name])
)


@st.composite
def words(draw: st.DrawFn) -> str:
    """A word starting with a character of any class, followed by characters of any."""
    return draw(characters) + "".join(draw(st.lists(characters, max_size=10)))


@given(words(), st.sampled_from([3, 4, 5, 8]))
def test_encode_word_and_decode_start_agree_for_every_character_class(word, version):
    """For any word whose first character is an A0 letter, an upper case letter, A2
    punctuation, a ten-bit ZSCII escape or a character beyond ZSCII, at the resolution of
    any version: the key encode_word gives is the one the Standard gives for the characters
    the interpreter reads (S 3.7), decode_start reads back that first character, and a
    story whose dictionary holds the word finds it under that key."""
    read_as = "".join(as_read(char) for char in word)
    size = 6 if version <= 3 else 9
    key = encode_word(word, size)
    assert key == pack(dictionary_zchars(read_as, version))
    assert decode_start(key) == read_as[0]
    lexicon = read_lexicon(story(version, [read_as], separators=""))
    assert lexicon.entry(word) == key
    assert [decode_start(entry) for entry in lexicon.entries] == [read_as[0]]
