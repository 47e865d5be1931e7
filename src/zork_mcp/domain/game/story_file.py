"""What a Z-machine story file tells about how its game reads a command line.

The parser of an Infocom game looks words up in the story file's own dictionary, after
encoding them as the interpreter does (lower case, Z-characters, cut to 6 of them in
versions 1-3 and 9 later), and breaks a line at spaces and at its own word separators.
The text buffer it reads into has room for a fixed number of letters. All three are read
here from the story file's bytes (Z-Machine Standard 1.1, sections 3, 11, 13 and 15), so
a command can be checked on the words the game will see.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from zork_mcp.domain.errors import ConfigurationError

HEADER_SIZE = 64
# The versions Jericho's Frotz runs and whose dictionary this reads (version 6 draws
# pictures, which Frotz's text-only build does not; 1 and 2 have no such dictionary).
PLAYABLE_VERSIONS = (3, 4, 5, 7, 8)
MAX_STORY_BYTES = 512 * 1024  # the largest story of any version (S 1.1.4: version 8)
_MAX_BY_VERSION = {1: 128, 2: 128, 3: 128, 4: 256, 5: 256, 6: 512, 7: 512, 8: 512}
_LENGTH_UNIT = {1: 2, 2: 2, 3: 2, 4: 4, 5: 4, 6: 8, 7: 8, 8: 8}  # the header's file length
FALLBACK_INPUT_LIMIT = 60  # when no read instruction can be decoded: a cautious buffer
INTERPRETER_LINE_LIMIT = 198  # Jericho's input buffer (200 - newline - NUL)
_A2 = "0123456789.,!?_#'\"/\\-:()"  # Z-characters 8..31 of alphabet A2 (S 3.5.3)
_SREAD = 0xE4  # VAR:0x04, `sread` (V1-4) / `aread` (V5+)


@dataclass(frozen=True)
class StoryHeader:
    """What a story file's header says of it (Z-Machine Standard 1.1, section 11)."""

    version: int
    release: int
    serial: str
    time_game: bool  # version 3: its status line shows the time, not the score and moves

    @property
    def scored(self) -> bool:
        """Whether its status line shows a score: a version 3 game that is not timed."""
        return self.version == 3 and not self.time_game


def read_header(story: bytes, source: str) -> StoryHeader:
    """The header of a story file the emulator can play; ConfigurationError, naming
    `source` and saying what is wrong, for anything else: a file that is not a story, a
    truncated or corrupt one, or a version Jericho does not run."""
    fix = "Pass a story file (.z3, .z5, .z8) or a game's name (zork1, zork2, zork3) to --game."
    if len(story) < HEADER_SIZE or not 1 <= story[0] <= 8:
        short = len(story) < HEADER_SIZE
        what = f"{len(story)} bytes" if short else f"its first byte is {story[0]}"
        raise ConfigurationError(f"{source} is not a Z-machine story file ({what}). {fix}")
    version = story[0]
    if version not in PLAYABLE_VERSIONS:
        raise ConfigurationError(
            f"{source} is a version {version} story file; Jericho plays versions "
            f"{', '.join(map(str, PLAYABLE_VERSIONS))} only. {fix}"
        )
    if len(story) > _MAX_BY_VERSION[version] * 1024:
        raise ConfigurationError(
            f"{source} is {len(story):,} bytes, more than a version {version} story file can "
            f"be ({_MAX_BY_VERSION[version]} KB): it is not a story file. {fix}"
        )
    length = _word(story, 0x1A) * _LENGTH_UNIT[version]
    if length > len(story):
        raise ConfigurationError(
            f"{source} is truncated: its header says {length:,} bytes, the file has "
            f"{len(story):,}. Download or copy it again."
        )
    checksum = _word(story, 0x1C)
    if length and checksum and sum(story[HEADER_SIZE:length]) % 0x10000 != checksum:
        raise ConfigurationError(
            f"{source} is corrupt: its bytes do not add up to the checksum its header "
            "holds. Download or copy it again."
        )
    serial = story[0x12:0x18].decode("ascii", "replace")
    return StoryHeader(version, _word(story, 0x02), serial, bool(story[1] & 0x02))


@dataclass(frozen=True)
class GameLexicon:
    """The game's dictionary (encoded word -> its data bytes), separators and input limit."""

    version: int
    separators: frozenset[str]
    entries: Mapping[bytes, bytes]
    input_limit: int

    @property
    def resolution(self) -> int:
        """How many Z-characters of a word the dictionary keeps."""
        return 6 if self.version <= 3 else 9

    def key(self, word: str) -> bytes:
        return encode_word(word, self.resolution)

    def entry(self, word: str) -> bytes | None:
        """The dictionary key the game finds for `word`, or None for an unknown word."""
        key = self.key(word)
        return key if key in self.entries else None

    def words(self, line: str) -> list[str]:
        """`line` broken into words as the game's tokeniser does: spaces and separators."""
        words, current = [], ""
        for char in line.lower():
            if char == " " or char in self.separators:
                words += [current] if current else []
                words += [char] if char != " " else []
                current = ""
            else:
                current += char
        return [*words, current] if current else words

    @classmethod
    def from_words(
        cls,
        words: Iterable[str | tuple[str, bytes]],
        *,
        separators: str = '.,"',
        version: int = 3,
        input_limit: int = 119,
    ) -> GameLexicon:
        """A dictionary built from words (each its own data unless given), for stand-in games."""
        items = [item if isinstance(item, tuple) else (item, None) for item in words]
        given = {data for _, data in items if data is not None}
        own = (data for n in itertools.count() if (data := n.to_bytes(3, "big")) not in given)
        entries = {
            encode_word(word, 6 if version <= 3 else 9): next(own) if data is None else data
            for word, data in items
        }
        return cls(version, frozenset(separators), entries, input_limit)


def read_lexicon(story: bytes) -> GameLexicon:
    """The lexicon of a story file; ConfigurationError if it is not one this reads."""
    if len(story) < HEADER_SIZE or not 3 <= story[0] <= 8:
        raise ConfigurationError(
            "The game file is not a Z-machine story of version 3 to 8 (its first byte is "
            f"{story[0] if story else 'missing'}). Pass a .z3/.z5/.z8 story file with --game."
        )
    try:
        separators, entries = _dictionary(story)
    except IndexError as e:
        raise ConfigurationError(
            "The game file's dictionary runs past its end: the story file is truncated or "
            "corrupt. Download it again."
        ) from e
    limit = min(_input_limit(story), INTERPRETER_LINE_LIMIT)
    return GameLexicon(story[0], separators, entries, limit)


def encode_word(word: str, resolution: int = 6) -> bytes:
    """`word` as the interpreter encodes it for a dictionary lookup (S 3.7, 13.6)."""
    zchars = [z for char in word.lower() for z in _zchars(char)][:resolution]
    zchars += [5] * (resolution - len(zchars))
    packed = bytearray()
    for i in range(0, resolution, 3):
        a, b, c = zchars[i : i + 3]
        value = (a << 10) | (b << 5) | c | (0x8000 if i + 3 == resolution else 0)
        packed += value.to_bytes(2, "big")
    return bytes(packed)


def decode_start(key: bytes) -> str:
    """The first character of an encoded dictionary word ('' if it is not plain text)."""
    first = (key[0] >> 2) & 0x1F
    if 6 <= first <= 31:
        return chr(ord("a") + first - 6)
    second = ((key[0] & 0x03) << 3) | (key[1] >> 5)
    if first == 5 and second >= 8:
        return _A2[second - 8]
    if first == 5 and second == 6:
        third = key[1] & 0x1F
        fourth = (key[2] >> 2) & 0x1F
        return chr((third << 5) | fourth)
    return ""


def _zchars(char: str) -> list[int]:
    char = char if ord(char) < 1024 else "?"  # no ZSCII code: the interpreter reads '?'
    if "a" <= char <= "z":
        return [ord(char) - ord("a") + 6]
    if char in _A2:
        return [5, _A2.index(char) + 8]
    return [5, 6, ord(char) >> 5, ord(char) & 0x1F]


def _word(story: bytes, address: int) -> int:
    return int.from_bytes(story[address : address + 2], "big")


def _dictionary(story: bytes) -> tuple[frozenset[str], dict[bytes, bytes]]:
    address = _word(story, 0x08)
    count = story[address]
    separators = frozenset(chr(b) for b in story[address + 1 : address + 1 + count])
    address += 1 + count
    size, entries_count = story[address], int.from_bytes(story[address + 1 : address + 3], "big")
    text = 4 if story[0] <= 3 else 6
    start, entries = address + 3, {}
    for n in range(abs(entries_count)):
        entry = story[start + n * size : start + (n + 1) * size]
        if len(entry) < size:
            raise IndexError(n)
        entries[bytes(entry[:text])] = bytes(entry[text:])
    return separators, entries


def _input_limit(story: bytes) -> int:
    """The fewest letters any of the game's read instructions accepts (S 15, `read`)."""
    limits = [_letters(story, buffer) for buffer in _read_buffers(story)]
    return min((n for n in limits if n > 0), default=FALLBACK_INPUT_LIMIT)


def _letters(story: bytes, buffer: int) -> int:
    capacity = story[buffer]
    return capacity - 1 if story[0] <= 4 else capacity


def _read_buffers(story: bytes) -> Iterator[int]:
    """Text-buffer addresses of well-formed read instructions whose buffer is a constant or
    a global variable; a byte 0xE4 inside data or text rarely has a valid operand list."""
    code, dynamic_end = _word(story, 0x04), _word(story, 0x0E)
    globals_at = _word(story, 0x0C)
    for at in range(code, len(story) - 3):
        if story[at] != _SREAD or not _valid_read_operands(story[0], story[at + 1]):
            continue
        kind = story[at + 1] >> 6
        if kind == 0:  # a large constant
            buffer = _word(story, at + 2)
        elif kind == 2 and story[at + 2] >= 16:  # a global variable's initial value
            buffer = _word(story, globals_at + 2 * (story[at + 2] - 16))
        else:
            continue
        if HEADER_SIZE <= buffer < dynamic_end:
            yield buffer


def _valid_read_operands(version: int, types: int) -> bool:
    """Operand kinds (S 4.4.3): none omitted before one that is given, and as many as the
    version's read takes: 2 in versions 1-3, 2 or 4 in version 4, 1 to 4 later."""
    kinds = [(types >> shift) & 3 for shift in (6, 4, 2, 0)]
    count = kinds.index(3) if 3 in kinds else 4
    if any(kind != 3 for kind in kinds[count:]):
        return False
    allowed = {2} if version <= 3 else {2, 4} if version == 4 else {1, 2, 3, 4}
    return count in allowed


def location_object(ram: bytes) -> int:
    """The object number of the player's location, 0 where memory is too short to hold it.

    The first global variable holds it: a version 1-3 interpreter prints its short name on
    the status line (Z-machine Standard 1.1, §8.2.2), and the games keep it there from V4 on
    (Zork I's `HERE`). The globals table's address is the header word at 0x0C.
    """
    if len(ram) < HEADER_SIZE:
        return 0
    globals_table = _word(ram, 0x0C)
    return _word(ram, globals_table) if globals_table + 2 <= len(ram) else 0
