"""The story file read as the interpreter reads it: word encoding, dictionary, separators,
and the text buffer of the game's read instructions; in Zork I, and in synthetic story
files of versions 3, 4, 5 and 8 that hold every case the reader must tell apart."""

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import ROOT
from tests.support.story_files import (
    A0,
    A2,
    HEADER_SIZE,
    LARGE,
    OMITTED,
    SMALL,
    VARIABLE,
    Operand,
    StoryBuilder,
    Word,
    dictionary_zchars,
    large,
    pack,
    raw_read,
    read,
    read_for,
    resolution,
    small,
    story,
    types_byte,
    variable,
)
from zork_mcp.adapters.game.jericho import find_game_file
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.game.story_file import (
    GameLexicon,
    decode_start,
    encode_word,
    location_object,
    read_lexicon,
)

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


# Synthetic story files (tests/support/story_files.py), each field where the Z-Machine
# Standard 1.1 puts it: every version, encoding, dictionary layout and read instruction.

A2_PUNCTUATION = A2[2:]
ESCAPED = "$@%&*+=;<>[]{}|~`^ \x9b\xfb\u03df\u03f6"  # ASCII, extra characters, top bits set
EVERY_CLASS = A0 + A2_PUNCTUATION + ESCAPED


def limit_of(builder: StoryBuilder) -> int:
    return read_lexicon(builder.build()).input_limit


def test_the_builder_writes_words_as_infocoms_compiler_wrote_zork_i():
    words = ["north", "q", "#comm", "$ve", "#rand", "zork", "y"]
    assert {pack(dictionary_zchars(word, 3)) for word in words} <= set(ZORK.entries)


@pytest.mark.parametrize("version", [3, 4])
def test_every_character_class_encodes_as_the_standard_says(version):
    """S 3.7: A0 letters as themselves, A2 punctuation after a shift, anything else as a
    ten-bit escape, all cut at the resolution (an escape left incomplete) and padded."""
    size = resolution(version)
    for char in EVERY_CLASS:
        for word in [char, char + "ab", "abcd" + char, "abcdefg" + char, char * 5]:
            expected = pack(dictionary_zchars(word, version))
            assert encode_word(word, size) == expected, (word, version)


def test_the_standards_own_example_encodes_as_it_says():
    """S 3.7 encodes "i" as 14, 5, 5, 5, 5, 5, 5, 5, 5 (its hex shows $48a5 for the first
    word, a misprint: 14 is 01110, so the word is $38a5)."""
    assert encode_word("i", 9) == bytes.fromhex("38a514a594a5")
    assert encode_word("i") == encode_word("i", 6) == bytes.fromhex("38a594a5")


def test_typed_text_is_encoded_in_lower_case_and_beyond_zscii_as_a_question_mark():
    """An interpreter types a character with no ZSCII code as '?' (S 3.8), which A2 holds."""
    assert encode_word("NoRTH") == encode_word("north")
    assert encode_word("\u0400") == encode_word("?") == encode_word("?", 6)
    assert encode_word("\u03df") != encode_word("?")  # 991: still a ten-bit code


@pytest.mark.parametrize("version", [3, 4])
def test_the_first_character_of_a_word_of_every_class_is_read_back_from_its_key(version):
    for char in EVERY_CLASS:
        key = pack(dictionary_zchars(char + "xy", version))
        assert decode_start(key) == char, (char, version)


@pytest.mark.parametrize(
    "zchars",
    [(5, 5, 5, 5, 5, 5), (0, 6, 7, 5, 5, 5), (1, 6, 5, 5, 5, 5), (4, 6, 5, 5, 5, 5),
     (5, 7, 6, 5, 5, 5), (5, 5, 6, 5, 5, 5), (3, 31, 31, 5, 5, 5)],
)  # fmt: skip
def test_a_key_that_does_not_start_with_a_character_decodes_to_nothing(zchars):
    """Pad, space, abbreviation, A1 shift, A2 new-line or a shift shifted: no character."""
    assert decode_start(pack(zchars)) == ""


WORDS = ["north", "#record", "$verify", "quit", "restart", "inventory", "i"]


@pytest.mark.parametrize("version", [3, 4, 5, 8])
def test_a_story_of_each_version_gives_its_dictionary_words_at_its_resolution(version):
    lexicon = read_lexicon(story(version, WORDS, letters=40))
    assert lexicon.version == version
    assert len(lexicon.entries) == len(WORDS)
    assert all(lexicon.entry(word) == lexicon.key(word) for word in WORDS)
    assert len(lexicon.key("north")) == (4 if version <= 3 else 6)
    found = {word: lexicon.entry(word) is not None for word in ["restarting", "inventorying"]}
    assert found == {"restarting": version <= 3, "inventorying": True}
    assert lexicon.entry("inventions") == (lexicon.key("inventory") if version <= 3 else None)


@pytest.mark.parametrize(("version", "data"), [(3, 0), (3, 6), (4, 0), (5, 6), (8, 3)])
def test_the_entry_length_splits_each_entry_into_its_text_and_its_data(version, data):
    builder = StoryBuilder(version).dictionary(Word("north", b"\x0a\x0b\x0c\x0d\x0e\x0f"))
    builder.entry_data = data
    lexicon = read_lexicon(builder.build())
    assert lexicon.entries == {
        encode_word("north", resolution(version)): b"\x0a\x0b\x0c\x0d\x0e\x0f"[:data]
    }


@pytest.mark.parametrize("separators", ["", ".", '.,"', ";:!?-"])
def test_the_separators_are_the_ones_the_dictionary_lists(separators):
    lexicon = read_lexicon(story(5, ["north", "go"], separators=separators))
    assert lexicon.separators == frozenset(separators)
    assert lexicon.entry("north") is not None and lexicon.entry("go") is not None


def test_a_line_is_broken_into_words_as_the_standard_breaks_it():
    """S 13.6.1: "fred,go  fishing" is the four words fred / , / go / fishing."""
    lexicon = read_lexicon(story(5, ["fred", "go", "fishing"]))
    assert lexicon.words("fred,go  fishing") == ["fred", ",", "go", "fishing"]
    assert lexicon.words("  Fred.,GO ") == ["fred", ".", ",", "go"]
    assert read_lexicon(story(5, separators=";")).words("a;b,c") == ["a", ";", "b,c"]


def test_a_dictionary_that_runs_past_the_end_of_the_file_is_a_truncated_story():
    whole = story(3, WORDS)
    end = int.from_bytes(whole[0x04:0x06], "big")  # high memory starts after the dictionary
    assert len(read_lexicon(whole[:end]).entries) == len(WORDS)
    for cut in [end - 1, int.from_bytes(whole[0x08:0x0A], "big") + 2, HEADER_SIZE]:
        with pytest.raises(ConfigurationError) as raised:
            read_lexicon(whole[:cut])
        assert str(raised.value) == (
            "The game file's dictionary runs past its end: the story file is truncated or "
            "corrupt. Download it again."
        )
        assert isinstance(raised.value.__cause__, IndexError)
    with pytest.raises(ConfigurationError) as raised:
        read_lexicon(whole[: end - 1])
    assert raised.value.__cause__.args == (len(WORDS) - 1,), "the entry that runs past the end"


@pytest.mark.parametrize(("first", "shown"), [(2, "2"), (9, "9"), (None, "missing")])
def test_a_file_that_is_no_story_of_version_3_to_8_is_refused_naming_its_first_byte(first, shown):
    whole = story(3, WORDS)
    bad = b"" if first is None else bytes([first]) + whole[1:]
    with pytest.raises(ConfigurationError) as raised:
        read_lexicon(bad)
    assert str(raised.value) == (
        "The game file is not a Z-machine story of version 3 to 8 (its first byte is "
        f"{shown}). Pass a .z3/.z5/.z8 story file with --game."
    )


def test_a_file_shorter_than_a_header_is_no_story_even_with_a_good_version():
    with pytest.raises(ConfigurationError, match=r"first byte is 3\)"):
        read_lexicon(story(3, WORDS)[: HEADER_SIZE - 1])


@pytest.mark.parametrize("version", [3, 4, 5, 6, 7, 8])
def test_every_version_from_3_to_8_is_read(version):
    base = story(8 if version >= 6 else 3, WORDS, letters=40)
    assert read_lexicon(bytes([version]) + base[1:]).version == version


@pytest.mark.parametrize(
    ("version", "byte0", "letters"), [(3, 41, 40), (4, 41, 40), (5, 40, 40), (8, 40, 40)]
)
def test_a_text_buffer_holds_its_first_byte_less_one_letters_before_version_5(
    version, byte0, letters
):
    """S 15 `read`: up to version 4 the buffer also holds a zero after the letters."""
    builder = StoryBuilder(version)
    builder.instructions(read_for(version, builder.text_buffer(byte0), builder.parse_buffer()))
    assert limit_of(builder) == letters


def test_the_limit_is_the_fewest_letters_any_read_accepts_and_the_interpreters_line():
    builder = StoryBuilder(5)
    short, long = builder.text_buffer(30), builder.text_buffer(50)
    builder.instructions(read(5, large(long)), read(5, large(short)), read(5, large(long)))
    assert limit_of(builder) == 30
    huge = StoryBuilder(5)
    huge.instructions(read(5, large(huge.text_buffer(250))))
    assert limit_of(huge) == 198  # Jericho's own line is shorter than the game's buffer


def test_a_story_whose_reads_cannot_be_found_gets_a_cautious_limit():
    assert read_lexicon(story(5, WORDS)).input_limit == 60


@pytest.mark.parametrize(("version", "byte0", "letters"), [(3, 1, 50), (5, 0, 50), (5, 1, 1)])
def test_a_buffer_with_room_for_no_letter_sets_no_limit(version, byte0, letters):
    builder = StoryBuilder(version)
    empty, normal = builder.text_buffer(byte0), builder.text_buffer(51 if version <= 4 else 50)
    parse = builder.parse_buffer()
    builder.instructions(read_for(version, empty, parse), read_for(version, normal, parse))
    assert limit_of(builder) == letters


def decoy_story(version: int, operands) -> StoryBuilder:
    """A story with a 20-letter buffer first in dynamic memory (at $40, where the header
    ends), reached only by the read `operands(builder, buffer, parse)`, after a read of a
    50-letter buffer."""
    builder = StoryBuilder(version)
    decoy = builder.text_buffer(21 if version <= 4 else 20)
    normal = builder.text_buffer(51 if version <= 4 else 50)
    parse = builder.parse_buffer()
    builder.instructions(read_for(version, normal, parse), operands(builder, decoy, parse))
    return builder


def with_global(number):
    def operands(builder, decoy, parse):
        builder.global_variable(number, decoy)
        return read(5, variable(number), large(parse))

    return operands


@pytest.mark.parametrize(
    ("operands", "counted"),
    [
        (lambda b, decoy, parse: read(5, large(decoy), large(parse)), True),
        (with_global(16), True),
        (with_global(100), True),
        (with_global(255), True),
        (lambda b, decoy, parse: read(5, small(decoy), large(parse)), False),
        (lambda b, decoy, parse: read(5, variable(0), large(parse)), False),
        (lambda b, decoy, parse: read(5, variable(15), large(parse)), False),
    ],
    ids=["large", "global 16", "global 100", "global 255", "small", "stack", "local 15"],
)
def test_a_text_buffer_is_read_from_a_constant_or_a_globals_initial_value(operands, counted):
    """S 4.2: a large constant is an address; a global's initial value is in the globals
    table (S 6.2); a small constant, the stack or a local is known only when the game runs."""
    assert limit_of(decoy_story(5, operands)) == (20 if counted else 50)


def test_a_local_or_the_stack_is_skipped_even_where_the_word_before_the_globals_is_a_buffer():
    """Variables 0 (the stack) and 1-15 (locals) have no value in the file (S 4.2.2): a read
    of one is skipped, and the reads after it still count."""
    builder = StoryBuilder(5)
    decoy = builder.text_buffer(20)
    normal = builder.text_buffer(50)
    builder.table(decoy.to_bytes(2, "big"))  # the word just before the globals table
    builder.instructions(
        read(5, variable(15)), read(5, large(normal)), read(5, variable(15)),
        read(5, variable(0)), read(5, small(decoy)),
    )  # fmt: skip
    assert limit_of(builder) == 50


def kinds_read(version: int, *kinds: int):
    def operands(builder, decoy, parse):
        values = [decoy, parse, 0, 0][: len(kinds)]
        return read(version, *map(Operand, kinds, values))

    return operands


@pytest.mark.parametrize(
    ("version", "count", "counted"),
    [(3, 1, False), (3, 2, True), (3, 3, False), (3, 4, False),
     (4, 1, False), (4, 2, True), (4, 3, False), (4, 4, True),
     (5, 1, True), (5, 2, True), (5, 3, True), (5, 4, True),
     (8, 1, True), (8, 4, True)],
)  # fmt: skip
def test_a_read_has_as_many_operands_as_its_version_takes(version, count, counted):
    """S 15: `sread text parse` (v1-3), `sread text parse time routine` (v4: time and
    routine are optional), `aread text parse time routine` (v5+: only text is needed)."""
    builder = decoy_story(version, kinds_read(version, *[LARGE] * count))
    assert limit_of(builder) == (20 if counted else 50)


@pytest.mark.parametrize(
    ("version", "types"),
    [(5, types_byte(LARGE, OMITTED, LARGE)), (4, types_byte(LARGE, LARGE, OMITTED, LARGE)),
     (3, types_byte(LARGE, LARGE, OMITTED, SMALL)), (5, types_byte(OMITTED, LARGE))],
)  # fmt: skip
def test_a_read_with_an_operand_after_an_omitted_one_is_no_instruction(version, types):
    """S 4.4.3: once one type has been given as omitted, all subsequent ones must be."""

    def operands(builder, decoy, parse):
        return raw_read(types, decoy.to_bytes(2, "big") * 3)

    assert limit_of(decoy_story(version, operands)) == 50


def test_only_the_code_is_read_for_instructions_from_its_first_byte_to_its_last():
    in_data = decoy_story(5, lambda b, decoy, parse: b"")
    in_data.table(read(5, large(HEADER_SIZE)))
    assert limit_of(in_data) == 50, "read-like bytes in dynamic memory are data"
    first = StoryBuilder(5)
    first.instructions(read(5, large(first.text_buffer(20))))
    assert limit_of(first) == 20  # the initial PC is the first byte of high memory
    last = decoy_story(5, lambda b, decoy, parse: read(5, variable(16)))
    last.global_variable(16, HEADER_SIZE)
    last_read = last.build(end_code=False)
    assert last_read[-4:] == bytes([0xE4, types_byte(VARIABLE), 16, 0])
    assert read_lexicon(last_read).input_limit == 20, "the file's last 4 bytes are a read"
    cut = decoy_story(5, lambda b, decoy, parse: raw_read(types_byte(LARGE), bytes([decoy])))
    assert read_lexicon(cut.build(end_code=False)).input_limit == 50, "cut off by the end"


@pytest.mark.parametrize(
    "address",
    [lambda b: 0x00, lambda b: HEADER_SIZE - 1, lambda b: b.static_address],
    ids=["header", "last header byte", "static memory"],
)
def test_a_buffer_outside_dynamic_memory_after_the_header_is_no_text_buffer(address):
    """S 15 `read` writes the text buffer, and only dynamic memory can be written (S 1.1)."""
    assert limit_of(decoy_story(5, lambda b, decoy, parse: read(5, large(address(b))))) == 50


@pytest.mark.parametrize("version", [3, 4, 5, 8])
def test_a_stand_in_lexicon_has_the_keys_a_story_of_its_version_has(version):
    stand_in = GameLexicon.from_words(WORDS, version=version)
    assert set(stand_in.entries) == set(read_lexicon(story(version, WORDS)).entries)
    assert stand_in.version == version


def test_a_stand_in_lexicon_reads_commands_as_zork_i_unless_told_otherwise():
    lexicon = GameLexicon.from_words(["north", "q"])
    settings = (lexicon.version, lexicon.separators, lexicon.input_limit)
    assert settings == (ZORK.version, ZORK.separators, ZORK.input_limit)
    shape = {(len(key), len(data)) for key, data in lexicon.entries.items()}
    assert shape == {(len(key), len(data)) for key, data in ZORK.entries.items()} == {(4, 3)}
    later = GameLexicon.from_words(["inventory"], version=5, separators=";", input_limit=80)
    assert (later.separators, later.input_limit) == (frozenset(";"), 80)
    assert later.words("take all;drop it.") == ["take", "all", ";", "drop", "it."]


def test_each_word_of_a_stand_in_lexicon_has_data_of_its_own_unless_given():
    lexicon = GameLexicon.from_words(["north", "south", "east", ("quit", b"\x01"), ("q", b"\x01")])
    data = [lexicon.entries[lexicon.key(word)] for word in ["north", "south", "east", "quit"]]
    assert len(set(data)) == 4 and data[-1] == b"\x01"


def test_a_word_without_data_is_no_synonym_of_a_word_given_data():
    """The data numbered for a word must not be one given to another: 'south' was 00 00 01,
    the data given to 'quit' here, and so was read as quit."""
    lexicon = GameLexicon.from_words(["north", "south", ("quit", b"\x00\x00\x01"), "east"])
    data = [lexicon.entries[lexicon.key(word)] for word in ["north", "south", "quit", "east"]]
    assert len(set(data)) == 4


@given(globals_at=st.integers(64, 1000), location=st.integers(0, 0xFFFF), spare=st.integers(0, 9))
def test_the_location_is_the_first_global_where_the_header_says_the_globals_are(
    globals_at, location, spare
):
    ram = bytearray(globals_at + 2 + spare)
    ram[0x0C:0x0E] = globals_at.to_bytes(2, "big")
    ram[globals_at : globals_at + 2] = location.to_bytes(2, "big")
    assert location_object(bytes(ram)) == location


def test_memory_too_short_for_a_header_or_its_globals_has_no_location():
    assert location_object(bytes(63)) == 0
    ram = bytearray(64)
    ram[0x0C:0x0E] = (63).to_bytes(2, "big")  # the globals' first word would end past RAM
    assert location_object(bytes(ram)) == 0
    ram[0x0C:0x0E] = (62).to_bytes(2, "big")
    ram[62:64] = (187).to_bytes(2, "big")
    assert location_object(bytes(ram)) == 187
