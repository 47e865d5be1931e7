"""A `tools/call` answer read item by item into the domain's ToolCallResult.

Text stays text. Images and audio become a short placeholder with their mime type and size;
resource links and embedded resources keep their URI (and their text, cut); an item of a
type MCP does not define becomes a one-line note. One odd item never costs the others.

Structured content is the result's machine-readable form, and MCP asks a server to send it
as content too: the model gets one of the two. A text item whose JSON is the structured
content (or, for a list, one item per element, as the SDK's MCPServer writes them) gives way
to it. Structured content that holds nothing but copies of the content items (the npm
filesystem server's `{"content": text}`) gives way to them. Otherwise the structured content
is shown, each text item it holds is dropped, and every other item stays beside it. It takes
the place of the first dropped item, or comes first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zork_mcp.domain.tools.tool_judgment import shown_name
from zork_mcp.domain.tools.tool_result import ToolCallResult

RESOURCE_TEXT_CHARS = 10_000
FIELD_CHARS = 2_000


@dataclass(frozen=True)
class CallAnswer:
    """What a `tools/call` answer says, read leniently."""

    items: list[Any]  # each content item as the LLM reads it
    structured: Any
    has_structured: bool  # the answer has the key, even with a null value
    is_error: bool
    blocks: tuple[Any, ...] = ()  # the content items as sent, to know copies of them


def read_answer(answer: Any) -> CallAnswer:
    """The answer's parts, each item read alone."""
    if not isinstance(answer, Mapping):
        note = f"[the server answered {type(answer).__name__}, not a tool result]"
        return CallAnswer([note], None, False, True)
    items = answer.get("content")
    blocks = tuple(items) if isinstance(items, list) else ()
    return CallAnswer(
        [content_item(item) for item in blocks],
        answer.get("structuredContent"),
        "structuredContent" in answer,
        answer.get("isError") is True,
        blocks,
    )


def to_result(answer: CallAnswer, wrapped: bool) -> ToolCallResult:
    """`wrapped`: the tool's output schema wraps a primitive result as {"result": value}."""
    if answer.is_error:
        return ToolCallResult.failure(
            _as_text(_single(answer.items)) or "the tool reported an error"
        )
    structured = answer.structured
    if structured is None:
        return ToolCallResult.success(_single(answer.items))
    shown = structured
    if wrapped and isinstance(structured, Mapping) and set(structured) == {"result"}:
        shown = structured["result"]
    return ToolCallResult.success(_beside(shown, (structured, shown), answer))


def _beside(shown: Any, values: tuple[Any, ...], answer: CallAnswer) -> Any:
    """The structured content with every item that does not repeat it (`values`: what it
    may be written as, wrapped or not), or the items alone when it only copies them."""
    items = answer.items
    if isinstance(shown, list) and items and len(items) == len(shown):
        pairs = zip(items, shown, strict=True)
        if all(_repeats(item, (value,)) for item, value in pairs):
            return shown  # MCPServer's one item per element of a list it returned
    repeats = [_repeats(item, values) for item in items]
    if not any(repeats) and items:
        held, only_copies = _copies(answer.structured, answer.blocks)
        if only_copies:
            return _single(items)
        repeats = [isinstance(item, str) and item in held for item in items]
    kept = [item for item, repeat in zip(items, repeats, strict=True) if not repeat]
    kept.insert(repeats.index(True) if any(repeats) else 0, shown)
    return _single(kept)


def _repeats(item: Any, values: tuple[Any, ...]) -> bool:
    """A text item that is one of `values`, as JSON or (for a string) as it is."""
    if not isinstance(item, str):
        return False
    if any(isinstance(value, str) and item == value for value in values):
        return True
    try:
        read = json.loads(item)
    except (ValueError, RecursionError):
        return False
    return any(type(read) is type(value) and read == value for value in values)


def _copies(structured: Any, blocks: tuple[Any, ...]) -> tuple[set[str], bool]:
    """The texts of `blocks` that `structured` holds as strings, and whether it holds nothing
    else: no other string, number, boolean or null, and no object but a copy of a block."""
    texts = {b["text"] for b in blocks if _is_text(b)}
    copies = {_json(b) for b in blocks if isinstance(b, Mapping)} - {None}
    held: set[str] = set()
    only_copies, left = True, [structured]
    while left:
        node = left.pop()
        if isinstance(node, str) and node in texts:
            held.add(node)
        elif isinstance(node, Mapping):
            if "type" not in node or _json(node) not in copies:
                left.extend(node.values())
        elif isinstance(node, list):
            left.extend(node)
        else:
            only_copies = False
    return held, only_copies


def _is_text(block: Any) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )


def _json(value: Any) -> str | None:
    """`value` written one way whatever its keys' order (None: too deep to write)."""
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None


def wraps_result(output_schema: Mapping[str, Any] | None) -> bool:
    """MCPServer wraps a primitive return as {"result": value} with a one-field schema."""
    properties = (output_schema or {}).get("properties", {})
    return isinstance(properties, Mapping) and set(properties) == {"result"}


def content_item(item: Any) -> Any:
    """One content item as the LLM reads it."""
    if not isinstance(item, Mapping):
        return "[a content item that is not an object was left out]"
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        return item["text"]
    if kind in ("image", "audio"):
        return f"[{kind}: {_field(item.get('mimeType'))}, {_decoded_size(item.get('data'))}]"
    if kind == "resource_link":
        return _fields(item, "type", "uri", "name", "title", "description", "mimeType")
    if kind == "resource" and isinstance(item.get("resource"), Mapping):
        return _embedded(item["resource"])
    shown = shown_name(kind) if isinstance(kind, str) else type(kind).__name__
    return f"[a content item of a type MCP does not define ({shown!r}) was left out]"


def _embedded(resource: Mapping[str, Any]) -> dict[str, Any]:
    kept = _fields(resource, "uri", "mimeType")
    text = resource.get("text")
    if isinstance(text, str):
        kept["text"] = _cut(text, RESOURCE_TEXT_CHARS)
    elif "blob" in resource:
        kept["blob"] = _decoded_size(resource.get("blob"))
    return {"type": "resource", **kept}


def _fields(item: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {name: _field(item[name]) for name in names if isinstance(item.get(name), str)}


def _field(value: Any) -> str:
    return _cut(value, FIELD_CHARS) if isinstance(value, str) else "unknown type"


def _decoded_size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    size = len(data) * 3 // 4 - data.count("=", max(0, len(data) - 2))
    return f"{size:,} bytes omitted"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" [cut: {len(text) - limit} more]"


def _single(content: list[Any]) -> Any:
    return content[0] if len(content) == 1 else content


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(item if isinstance(item, str) else str(item) for item in content)
    return str(content)
