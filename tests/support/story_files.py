"""Synthetic Z-machine story files of under a kilobyte or so (480 bytes are the globals table),
written as a compiler would by the Z-Machine Standard 1.1 (S n.n names each field's section):
a header, the global variables, text buffers, a dictionary and code made of `read`
instructions. What no reader of commands looks at (the object table, abbreviations, which
S 3.7 forbids in dictionary words) is left out, and its header word is 0."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

HEADER_SIZE = 64  # S 11.1: the header is the first 64 bytes
GLOBALS = 240  # S 6.2: the globals table holds 240 words, variables 16 to 255
A0 = "abcdefghijklmnopqrstuvwxyz"  # Z-characters 6..31 of alphabet A0 (S 3.5.3)
A2 = "\x00\r0123456789.,!?_#'\"/\\-:()"  # A2's 6 is the ZSCII escape, 7 new-line (S 3.5.3)
ESCAPE, SHIFT_A2, PAD = 6, 5, 5  # S 3.4, S 3.2.3, S 3.7
READ = 0xE4  # VAR form (S 4.3.3: top bits 11, bit 5 set), opcode 4: VAR:228 `read` (S 15)
RTRUE = 0xB0  # 0OP:176 `rtrue` (S 14), to end the code
LARGE, SMALL, VARIABLE, OMITTED = 0, 1, 2, 3  # operand types (S 4.2)


def resolution(version: int) -> int:
    """Z-characters a dictionary word keeps: 6 in versions 1-3, 9 later (S 3.7, 13.3, 13.4)."""
    return 6 if version <= 3 else 9


def dictionary_zchars(word: str, version: int) -> tuple[int, ...]:
    """`word` (lower case) in Z-characters as S 3.7 encodes typed text for the dictionary:
    A0 letters as themselves, A2 punctuation after shift 5 (S 3.2.3), anything else as a
    ten-bit ZSCII escape 5 6 hi lo (S 3.4), cut at the resolution even mid-escape, padded
    with 5s."""
    zchars: list[int] = []
    for char in word:
        if char in A0:
            zchars.append(6 + A0.index(char))
        elif char in A2[2:]:
            zchars += [SHIFT_A2, 6 + A2.index(char)]
        else:
            zchars += [SHIFT_A2, ESCAPE, ord(char) >> 5, ord(char) & 0x1F]
    size = resolution(version)
    return tuple(zchars[:size] + [PAD] * (size - len(zchars)))


def pack(zchars: Sequence[int]) -> bytes:
    """Z-characters three to a word, the top bit set on the last word only (S 3.2)."""
    words = [zchars[i : i + 3] for i in range(0, len(zchars), 3)]
    packed = bytearray()
    for n, (a, b, c) in enumerate(words):
        end = 0x8000 if n == len(words) - 1 else 0
        packed += (end | a << 10 | b << 5 | c).to_bytes(2, "big")
    return bytes(packed)


@dataclass(frozen=True)
class Operand:
    """An operand of kind LARGE (2 bytes), SMALL (1 byte) or VARIABLE (its number: 0 the
    stack, 1-15 locals, 16-255 globals), S 4.2 and S 4.2.2."""

    kind: int
    value: int

    def encoded(self) -> bytes:
        return self.value.to_bytes(2 if self.kind == LARGE else 1, "big")


def large(value: int) -> Operand:
    return Operand(LARGE, value)


def small(value: int) -> Operand:
    return Operand(SMALL, value)


def variable(number: int) -> Operand:
    return Operand(VARIABLE, number)


def types_byte(*kinds: int) -> int:
    """Four two-bit operand types, the first in bits 7-6, omitted ones 11 (S 4.4.3)."""
    padded = [*kinds, *[OMITTED] * (4 - len(kinds))]
    return padded[0] << 6 | padded[1] << 4 | padded[2] << 2 | padded[3]


def read(version: int, *operands: Operand) -> bytes:
    """A `read` instruction (S 15): `sread text parse` in versions 1-3, `sread text parse
    time routine` in 4, `aread text parse time routine -> (result)` from 5, whose result
    is stored on the stack (store byte 0, S 4.6) after the operands."""
    kinds = types_byte(*(operand.kind for operand in operands))
    body = b"".join(operand.encoded() for operand in operands)
    return bytes([READ, kinds]) + body + (b"" if version <= 4 else b"\x00")


def raw_read(types: int, operands: bytes = b"") -> bytes:
    """A `read` opcode byte followed by any types byte: for the ones a reader must ignore."""
    return bytes([READ, types]) + operands


@dataclass(frozen=True)
class Word:
    """A dictionary entry: its text (or its Z-characters, as they are) and its data (none:
    data of its own, so that no two such words are synonyms)."""

    text: str | tuple[int, ...]
    data: bytes | None = None


class StoryBuilder:
    """A story file laid out as header, dynamic memory (text buffers and other tables from
    $40, then the globals), static memory (the dictionary, S 13.1) and high memory (the
    code, from its first instruction: the initial PC, S 5.5), as S 1.1 orders them."""

    def __init__(self, version: int) -> None:
        if version not in (3, 4, 5, 8):
            raise ValueError(f"versions 3, 4, 5 and 8 only, not {version}")
        self.version = version
        self.tables = bytearray()  # dynamic memory from $40, before the globals
        self.globals = [0] * GLOBALS
        self.separators = '.,"'
        self.words: list[Word] = []
        self.entry_data = 3  # S 13 remarks: three bytes of data, as Inform writes them
        self.code = bytearray()

    @property
    def globals_address(self) -> int:
        return HEADER_SIZE + len(self.tables)

    @property
    def static_address(self) -> int:
        """Where static memory, the dictionary first, begins (once all tables are made)."""
        return self.globals_address + 2 * GLOBALS

    def table(self, content: bytes) -> int:
        """`content` placed in dynamic memory; its address."""
        address = HEADER_SIZE + len(self.tables)
        self.tables += content
        return address

    def text_buffer(self, byte0: int) -> int:
        """A text buffer whose byte 0 is `byte0`, with room for what S 15 `read` stores: the
        letters and a zero after them (versions 1-4), or a count byte then the letters."""
        size = byte0 + 1 if self.version <= 4 else byte0 + 2
        return self.table(bytes([byte0]) + bytes(size - 1))

    def parse_buffer(self, words: int = 4) -> int:
        """A parse buffer (S 15 `read`): the most words, a count, then 4 bytes a word."""
        return self.table(bytes([words]) + bytes(1 + 4 * words))

    def global_variable(self, number: int, value: int) -> StoryBuilder:
        """The initial value of global variable `number` (16-255), S 6.2."""
        self.globals[number - 16] = value
        return self

    def dictionary(self, *words: str | Word, separators: str | None = None) -> StoryBuilder:
        self.words += [word if isinstance(word, Word) else Word(word) for word in words]
        self.separators = self.separators if separators is None else separators
        return self

    def instructions(self, *code: bytes) -> StoryBuilder:
        self.code += b"".join(code)
        return self

    def build(self, *, end_code: bool = True) -> bytes:
        """The story file's bytes; `end_code=False` lets the last instruction end the file
        (and leaves out the padding to the length the header can state, S 11.1.6)."""
        dictionary = self._dictionary()
        code = bytes(self.code) + (bytes([RTRUE]) if end_code else b"")
        body = bytes(self.tables) + b"".join(value.to_bytes(2, "big") for value in self.globals)
        body += dictionary + code
        if end_code:
            body += bytes(-(HEADER_SIZE + len(body)) % _length_unit(self.version))
        return self._header(high=self.static_address + len(dictionary), body=body) + body

    def _dictionary(self) -> bytes:
        """S 13.2: separators, entry length, entry count; S 13.3-13.5: entries in numerical
        order of their encoded text, each the text then the word's data."""
        entries = sorted(self._entry(word, n) for n, word in enumerate(self.words, 1))
        text_size = len(pack([PAD] * resolution(self.version)))
        head = bytes([len(self.separators)]) + self.separators.encode("latin-1")
        head += bytes([text_size + self.entry_data]) + len(entries).to_bytes(2, "big")
        return head + b"".join(entries)

    def _entry(self, word: Word, number: int) -> bytes:
        zchars = word.text if isinstance(word.text, tuple) else None
        zchars = zchars or dictionary_zchars(str(word.text), self.version)
        data = number.to_bytes(3, "big") if word.data is None else word.data
        data = data.ljust(self.entry_data, b"\x00")[: self.entry_data]
        return pack(zchars) + data

    def _header(self, *, high: int, body: bytes) -> bytes:
        """S 11.1: version ($00), high memory ($04), initial PC ($06: the first instruction,
        in versions other than 6, S 5.5), dictionary ($08, at the start of static memory),
        globals ($0C), static memory ($0E), file length ($1A, S 11.1.6) and checksum ($1C:
        the sum of the bytes after the header, S 15 `verify`)."""
        length = (HEADER_SIZE + len(body)) // _length_unit(self.version)
        static = self.static_address
        fields = [(0x04, high), (0x06, high), (0x08, static), (0x0C, self.globals_address),
                  (0x0E, static), (0x1A, length), (0x1C, sum(body) % 0x10000)]  # fmt: skip
        header = bytearray(HEADER_SIZE)
        header[0x00] = self.version
        for offset, value in fields:
            header[offset : offset + 2] = value.to_bytes(2, "big")
        return bytes(header)


def _length_unit(version: int) -> int:
    """What the file length at $1A is divided by: 2, 4 in versions 4-5, 8 later (S 11.1.6)."""
    return 2 if version <= 3 else 4 if version <= 5 else 8


def story(
    version: int,
    words: Iterable[str | Word] = (),
    *,
    separators: str = '.,"',
    letters: int | None = None,
) -> bytes:
    """A story whose one `read` takes a constant text buffer of `letters` letters (none: no
    `read` at all), with the operands its version's `read` has (S 15)."""
    builder = StoryBuilder(version).dictionary(*words, separators=separators)
    if letters is not None:
        text = builder.text_buffer(letters + 1 if version <= 4 else letters)
        builder.instructions(read_for(version, text, builder.parse_buffer()))
    return builder.build()


def read_for(version: int, text: int, parse: int) -> bytes:
    """The usual `read` of a version: a text and a parse buffer (S 15)."""
    return read(version, large(text), large(parse))


def _read_alike(char: str) -> bool:
    return len(char.lower()) == 1 and not 0xD800 <= ord(char.lower()) < 0xE000


# The characters a typed word can hold, by how the interpreter encodes each (S 3.2.3, 3.4,
# 3.7): A0 letters, upper case ones (typed, read in lower case), A2 punctuation, ten-bit
# ZSCII escapes, and characters with no ZSCII code, which the interpreter types as '?'.
CHARACTER_CLASSES: dict[str, list[str]] = {
    "A0": list(A0),
    "A1": list(A0.upper()),
    "A2": list(A2[2:]),
    "escape": [chr(code) for code in range(32, 1024)
               if chr(code).lower() == chr(code) and chr(code) not in A0 + A2],
    "beyond ZSCII": [chr(code) for code in range(1024, 0x10000)
                     if _read_alike(chr(code)) and ord(chr(code).lower()) >= 1024],
}  # fmt: skip


def as_read(char: str) -> str:
    """The ZSCII character the interpreter reads for a typed one: in lower case (S 15
    `read`), '?' when it has no ZSCII code."""
    lowered = char.lower()
    return lowered if ord(lowered) < 1024 else "?"
