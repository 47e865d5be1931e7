"""Provider-safe tool names on the wire, mapped exactly both ways to canonical `server.tool` names.

OpenAI-style APIs accept `^[a-zA-Z0-9_-]{1,64}$`, Anthropic `^[a-zA-Z0-9_-]{1,128}$`, and
Gemini names that start with a letter or `_` and use letters, digits, `_ . : -` (64 at most).
A name keeps its readable form where that is valid and unique; otherwise it gets a short
SHA-256 suffix, so the mapping depends only on the set of names, never on their order.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from zork_mcp.domain.tools.tool_schema import SERVER_SEPARATOR


@dataclass(frozen=True)
class WireNameRule:
    """What a provider accepts as a function name."""

    provider: str
    allowed_chars: str
    max_length: int
    first_chars: str | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        first = f"[{self.first_chars}]" if self.first_chars else f"[{self.allowed_chars}]"
        return re.compile(f"^{first}[{self.allowed_chars}]{{0,{self.max_length - 1}}}$")

    def allows_dot(self) -> bool:
        return "." in self.allowed_chars


OPENAI_RULE = WireNameRule("openai", r"a-zA-Z0-9_\-", 64)
ANTHROPIC_RULE = WireNameRule("anthropic", r"a-zA-Z0-9_\-", 128)
GEMINI_RULE = WireNameRule("gemini", r"a-zA-Z0-9_.:\-", 64, first_chars=r"a-zA-Z_")

# By wire protocol; OpenAI's Responses API names function tools as chat completions do.
RULES = {rule.provider: rule for rule in (OPENAI_RULE, ANTHROPIC_RULE, GEMINI_RULE)}
RULES["openai-responses"] = OPENAI_RULE
_MIN_HASH, _HASH_STEP = 8, 4


class WireNameMap:
    """An exact two-way mapping between canonical tool names and one provider's wire names."""

    def __init__(self, canonical_names: Iterable[str], rule: WireNameRule = OPENAI_RULE) -> None:
        self.rule = rule
        self._to_wire = _assign_wire_names(sorted(set(canonical_names)), rule)
        self._to_canonical = {wire: name for name, wire in self._to_wire.items()}

    def to_wire(self, canonical: str) -> str:
        return self._to_wire[canonical]

    def to_canonical(self, wire: str) -> str | None:
        """The canonical name, or None for a name this map never issued."""
        return self._to_canonical.get(wire)

    def items(self) -> list[tuple[str, str]]:
        return sorted(self._to_wire.items())


def readable_wire_name(canonical: str, rule: WireNameRule) -> str:
    """The canonical name with the server separator and disallowed characters replaced."""
    name = canonical if rule.allows_dot() else canonical.replace(SERVER_SEPARATOR, "__", 1)
    name = re.sub(f"[^{rule.allowed_chars}]", "_", name)
    if rule.first_chars and not re.match(f"[{rule.first_chars}]", name):
        name = "_" + name
    return name


def _assign_wire_names(names: list[str], rule: WireNameRule) -> dict[str, str]:
    readable = {name: readable_wire_name(name, rule) for name in names}
    shared = Counter(readable.values())
    hash_length = _MIN_HASH
    while hash_length <= rule.max_length - _MIN_HASH:
        wire = {
            name: form
            if len(form) <= rule.max_length and shared[form] == 1
            else _hashed(form, name, hash_length, rule.max_length)
            for name, form in readable.items()
        }
        if len(set(wire.values())) == len(wire):
            return wire
        hash_length += _HASH_STEP
    raise ValueError(f"cannot give unique {rule.provider} wire names to {names!r}")


def _hashed(form: str, canonical: str, hash_length: int, max_length: int) -> str:
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:hash_length]
    return f"{form[: max_length - hash_length - 1]}_{digest}"
