"""One listed tool judged on its own: offered as a ToolSpec, or refused with a reason.

An MCP server is third-party code, and its `tools/list` answer is input. Each entry is read
alone, so one bad entry costs that tool only: the server's other tools stay usable. A name
must be a non-empty string that every provider rule can map (any such string can: long or
odd names get a hashed wire name); the input schema must be an object schema that a provider
can read (MCP: "inputSchema: { type: 'object' ... }"), nested no deeper than MAX_SCHEMA_DEPTH.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from zork_mcp.domain.tools.tool_schema import ToolSpec

MAX_NAME_CHARS = 1_000
MAX_DESCRIPTION_CHARS = 1_024  # OpenAI refuses longer ('string_above_max_length')
DESCRIPTION_CUT = " [cut]"
MAX_SCHEMA_DEPTH = 64  # containers within containers; real servers stay under ~10
NAME_SHOWN_CHARS = 80
SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


@dataclass(frozen=True)
class ToolRejection:
    """A tool a server listed that cannot be offered, and why."""

    server: str
    tool: str  # the name as listed, cut for display ("" when it had none)
    reason: str

    @property
    def key(self) -> str:
        return f"{self.server}\0{self.tool}\0{self.reason}"


def judge_tool(server: str, entry: object) -> ToolSpec | ToolRejection:
    """The entry as a ToolSpec, or the first reason it cannot be offered."""
    if not isinstance(entry, Mapping):
        return ToolRejection(server, "", f"the listing entry is {kind_of(entry)}, not an object")
    name = entry.get("name")
    problem = name_problem(name) or schema_problem(entry.get("inputSchema", _MISSING))
    if problem is not None:
        return ToolRejection(server, shown_name(name), problem)
    assert isinstance(name, str)
    schema = entry["inputSchema"]
    return ToolSpec(server, name, _description(entry.get("description")), dict(schema))


def name_problem(name: object) -> str | None:
    if not isinstance(name, str):
        return f"its name is {kind_of(name)}, not a string"
    if not name:
        return "its name is empty"
    if len(name) > MAX_NAME_CHARS:
        return f"its name has {len(name)} characters (at most {MAX_NAME_CHARS})"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid Unicode (it holds a lone surrogate)"
    return None


def schema_problem(schema: object) -> str | None:
    """Why `schema` is no tool input schema, or None when it is one."""
    if schema is _MISSING:
        return "it has no inputSchema (MCP requires an object schema)"
    if not isinstance(schema, Mapping):
        return f"its inputSchema is {kind_of(schema)}, not an object schema"
    kind = schema.get("type", "object")
    if kind != "object":
        return f"its inputSchema has type {kind!r}; a tool's input must be an object schema"
    depth = nesting_depth(schema, MAX_SCHEMA_DEPTH + 1)
    if depth > MAX_SCHEMA_DEPTH:
        return f"its inputSchema nests over {MAX_SCHEMA_DEPTH} levels deep"
    return _shape_problem(schema)


def _shape_problem(schema: Mapping[str, Any]) -> str | None:
    for node in _subschemas(schema):
        if not isinstance(node, (Mapping, bool)):
            return f"its inputSchema holds {kind_of(node)} where a schema must be"
        if not isinstance(node, Mapping):
            continue
        for key in SUBSCHEMA_MAPS:
            if key in node and not isinstance(node[key], Mapping):
                return f"its inputSchema's {key!r} is {kind_of(node[key])}, not an object"
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
            return "its inputSchema's 'required' is not a list of property names"
    return None


def _subschemas(schema: Mapping[str, Any]) -> Iterator[object]:
    """Every schema in `schema` (itself included), depth first, without recursion."""
    pending: list[object] = [schema]
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, Mapping):
            continue
        for key in SUBSCHEMA_MAPS:
            if isinstance(node.get(key), Mapping):
                pending.extend(node[key].values())
        for key in ("items", "additionalProperties", "not", "if", "then", "else"):
            if isinstance(node.get(key), (Mapping, bool)):
                pending.append(node[key])
        for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
            if isinstance(node.get(key), list):
                pending.extend(node[key])


def nesting_depth(value: object, limit: int) -> int:
    """How many containers deep `value` goes, counting no further than `limit`."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if not isinstance(node, (Mapping, list)):
            continue
        deepest = max(deepest, depth)
        if deepest >= limit:
            return deepest
        children = node.values() if isinstance(node, Mapping) else node
        pending.extend((child, depth + 1) for child in children)
    return deepest


def shown_name(name: object) -> str:
    """A listed name as events and errors show it: printable, and cut."""
    text = name if isinstance(name, str) else ""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return text if len(text) <= NAME_SHOWN_CHARS else text[:NAME_SHOWN_CHARS] + "..."


def _description(value: object) -> str:
    if not isinstance(value, str):
        return ""
    if len(value) <= MAX_DESCRIPTION_CHARS:
        return value
    return value[: MAX_DESCRIPTION_CHARS - len(DESCRIPTION_CUT)] + DESCRIPTION_CUT


def kind_of(value: object) -> str:
    """A JSON value's kind as an error message names it: "a list", "a string", "null"..."""
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return names.get(type(value), type(value).__name__)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()
