"""Text from an LLM or a server, made inert for a terminal or a log a person reads: no control
character (an escape sequence, a carriage return that overwrites a line, a bell) and no
bidirectional override (text that reads otherwise than it is stored) reaches the screen;
each is shown as its code instead."""

from __future__ import annotations

import re

# C0 but tab and newline, DEL, C1 (0x9b alone opens a CSI sequence), and the bidi controls
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def inert(text: str) -> str:
    """`text` with every character a terminal would act on written as its code (`\\x1b`)."""
    return _UNSAFE.sub(_code, text)


def _code(found: re.Match[str]) -> str:
    point = ord(found.group())
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"
