"""Text from a model may hold code points that no encoding can write: lone surrogates.

JSON lets a model send `"\\ud800"`, and Python decodes it to a string that UTF-8 refuses.
Wherever such text leaves us for a peer that must read it (a provider, an MCP server), it
is sent as a decoder would have read it: each lone surrogate becomes U+FFFD.
"""

from __future__ import annotations

from typing import Any

REPLACEMENT = "\ufffd"


def is_encodable(text: str) -> bool:
    """Whether UTF-8 can write `text` (it holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def encodable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (a pair of them joins up)."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def encodable_json(value: Any) -> Any:
    """`value` (JSON-like) with every string, keys included, made encodable."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {encodable_json(key): encodable_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [encodable_json(item) for item in value]
    return value
