"""A server's `tools/list` answer read page by page and judged tool by tool.

Each entry is judged alone, by the domain's rules (`judge_tool`), by the SDK's own model of a
tool, and by the JSON Schema metaschema its input schema claims (what a provider checks
before it takes a function): a bad entry is a ToolRejection and the others stay usable. An
answer with no tool list at all cannot be judged: the connect fails at once, naming what was
wrong, rather than waiting out the startup timeout.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
from jsonschema import SchemaError
from jsonschema.validators import validator_for
from mcp.shared.exceptions import MCPError as SdkMCPError
from pydantic import ValidationError

from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.sdk_errors import AnswerTooLargeError, UnreadableAnswerError, too_large
from zork_mcp.domain.tools.tool_judgment import ToolRejection, judge_tool, shown_name
from zork_mcp.domain.tools.tool_offer import ALLOW_ALL, ToolFilter
from zork_mcp.domain.tools.tool_schema import ToolSpec

MAX_PAGES = 20
MAX_LISTED = 10_000  # entries read from one server; the rest are not read
REASON_CHARS = 200
VERDICTS_KEPT = 1024


@dataclass
class Listing:
    """What one server offers: its usable tools (the SDK's and the domain's view of each)
    and the tools it listed that cannot be offered."""

    tools: list[types.Tool] = field(default_factory=list)
    specs: list[ToolSpec] = field(default_factory=list)
    rejected: list[ToolRejection] = field(default_factory=list)
    names: set[str] = field(default_factory=set)  # of the usable tools

    def add(self, tool: types.Tool, spec: ToolSpec) -> None:
        self.tools.append(tool)
        self.specs.append(spec)
        self.names.add(tool.name)


async def list_tools(
    session: ZorkClientSession, server: str, tool_filter: ToolFilter = ALLOW_ALL
) -> Listing:
    """Every page of the server's tools, judged; tools the user's filter leaves out are
    neither offered nor callable."""
    listing, cursor = Listing(), None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        entries, cursor = _page(await _list_page(session, params))
        for entry in entries[: MAX_LISTED - _read(listing)]:
            _judge(listing, server, entry, tool_filter)
        if not isinstance(cursor, str) or not cursor or _read(listing) >= MAX_LISTED:
            break
    _cut_short(listing, server, cursor)
    kept = session.absorb_tools(listing.tools)
    if len(kept) < len(listing.tools):
        _drop_unkept(listing, server, {tool.name for tool in kept})
    return listing


async def _list_page(
    session: ZorkClientSession, params: types.PaginatedRequestParams | None
) -> Any:
    try:
        return await session.send_unvalidated(types.ListToolsRequest(params=params))
    except SdkMCPError as e:
        if too_large(e):
            raise AnswerTooLargeError(f"its tools/list answer is {e.message}") from e
        raise


def _page(answer: Any) -> tuple[list[Any], Any]:
    if not isinstance(answer, Mapping):
        raise UnreadableAnswerError(
            f"its tools/list answer is {type(answer).__name__}, not an object with a tool list"
        )
    entries = answer.get("tools")
    if not isinstance(entries, list):
        raise UnreadableAnswerError(
            f"its tools/list answer has 'tools' = {_short(entries)}, not a list of tools"
        )
    return entries, answer.get("nextCursor")


def _judge(listing: Listing, server: str, entry: Any, tool_filter: ToolFilter) -> None:
    """Add the entry to the listing's tools, or to its rejected ones."""
    judged = judge_tool(server, entry)
    if isinstance(judged, ToolSpec) and not tool_filter.allows(judged.name):
        return
    if isinstance(judged, ToolSpec):
        judged = _sdk_judgment(judged, entry, listing)
    if isinstance(judged, ToolRejection):
        listing.rejected.append(judged)


def _sdk_judgment(
    spec: ToolSpec, entry: Mapping[str, Any], listing: Listing
) -> ToolRejection | None:
    def rejected(reason: str) -> ToolRejection:
        return ToolRejection(spec.server, shown_name(spec.name), reason)

    if spec.name in listing.names:
        return rejected("an earlier tool of the server has this name")
    try:
        tool = types.Tool.model_validate(entry, by_name=False)
    except ValidationError as e:
        return rejected(f"the MCP SDK cannot read it: {_first_error(e)}")
    problem = schema_verdict(json.dumps(spec.input_schema, sort_keys=True))
    if problem is not None:
        return rejected(problem)
    listing.add(tool, spec)
    return None


@functools.lru_cache(maxsize=VERDICTS_KEPT)
def schema_verdict(schema_json: str) -> str | None:
    """Why the schema is not valid JSON Schema under the metaschema it names (2020-12 when
    it names none), or None. Cached: the same schemas are listed every turn."""
    schema = json.loads(schema_json)
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as e:
        where = "/".join(str(part) for part in e.path) or "its top level"
        return f"its inputSchema is not valid JSON Schema at {where}: {_cut(e.message)}"
    return None


def _read(listing: Listing) -> int:
    return len(listing.tools) + len(listing.rejected)


def _cut_short(listing: Listing, server: str, cursor: Any) -> None:
    if isinstance(cursor, str) and cursor:
        listing.rejected.append(
            ToolRejection(
                server,
                "",
                f"the server lists more than {MAX_LISTED} tools or {MAX_PAGES} pages; "
                "the rest were not read",
            )
        )


def _drop_unkept(listing: Listing, server: str, kept: set[str]) -> None:
    """The SDK drops tools whose x-mcp-header declarations are invalid (2026-07-28)."""
    for spec in [spec for spec in listing.specs if spec.name not in kept]:
        reason = "its x-mcp-header declarations are invalid (the SDK drops it)"
        listing.rejected.append(ToolRejection(server, shown_name(spec.name), reason))
    listing.tools = [tool for tool in listing.tools if tool.name in kept]
    listing.specs = [spec for spec in listing.specs if spec.name in kept]


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "the entry"
    return _cut(f"{where}: {first.get('msg', 'invalid')}")


def _short(value: Any) -> str:
    if isinstance(value, (Mapping, list)):
        return f"a {type(value).__name__}"
    return _cut(repr(value))


def _cut(text: str) -> str:
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + "..."
