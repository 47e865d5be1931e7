"""The uniform result of a tool call (requirement 11), always serialisable to JSON."""

from __future__ import annotations

import base64
import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolCallResult:
    """What a tool call produced: content, or an error with its message."""

    content: Any = None
    is_error: bool = False
    error_message: str | None = None

    @classmethod
    def success(cls, content: Any) -> ToolCallResult:
        return cls(content=content)

    @classmethod
    def failure(cls, message: str, content: Any = None) -> ToolCallResult:
        return cls(content=content, is_error=True, error_message=message)

    def to_dict(self) -> dict[str, Any]:
        """A dict that `json.dumps` accepts whatever the content holds (property 43)."""
        if self.is_error:
            return {"error": self.error_message, "content": jsonable(self.content)}
        return {"content": jsonable(self.content)}

    def to_json(self) -> str:
        """The text placed in a tool message of the history (requirement 11.5)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, allow_nan=False)

    def preview(self, limit: int) -> str:
        """The result as a person reads it, cut to `limit` characters: the error's message,
        or the content (text as it is, anything else as indented JSON). A text no longer than
        its cut and the note saying so is shown whole ("[4 more characters]" saves nothing)."""
        if self.is_error:
            text = self.error_message or ""
        elif isinstance(self.content, str):
            text = self.content
        else:
            text = json.dumps(jsonable(self.content), ensure_ascii=False, indent=1)
        note = f"\n[{len(text) - limit} more characters]"
        return text if len(text) <= limit + len(note) else text[:limit] + note  # a cut saves

    def bounded(self, limit: int) -> ToolCallResult:
        """This result, or its text cut so that to_json() fits in `limit` characters.

        A 10 MB tool result would fill the LLM's context; the cut keeps the beginning and
        says how much was left out.
        """
        if len(self.to_json()) <= limit:
            return self
        message = _cut(self.error_message, limit // 4) if self.error_message else None
        body = self.content if isinstance(self.content, str) else _compact(self.content)
        keep = min(len(body), limit)  # escaping only lengthens text: no more than this fits
        while True:
            keep = max(0, keep - max(1, keep // 8))
            note = f"\n[truncated: first {keep} of {len(body)} characters shown]"
            candidate = dataclasses.replace(self, content=body[:keep] + note, error_message=message)
            if len(candidate.to_json()) <= limit or keep == 0:
                return candidate


def _compact(content: Any) -> str:
    return json.dumps(jsonable(content), ensure_ascii=False, allow_nan=False)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " [truncated]"


def jsonable(value: Any) -> Any:
    """A JSON-safe copy of `value`: strict JSON types only, cycles cut, unknowns as text."""
    return _jsonable(value, frozenset())


def _jsonable(value: Any, seen: frozenset[int]) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if id(value) in seen:
        return "<cycle>"
    inner = seen | {id(value)}
    if isinstance(value, Mapping):
        return {_key(k): _jsonable(v, inner) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [_jsonable(item, inner) for item in items]
    return _jsonable_object(value, inner)


def _jsonable_object(value: Any, seen: frozenset[int]) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return _jsonable(fields, seen)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _jsonable(dump(mode="json"), seen)
    return str(value)


def _key(key: Any) -> str:
    return key if isinstance(key, str) else str(key)
