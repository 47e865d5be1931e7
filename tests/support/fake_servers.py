"""A FakeToolServer built from MCP tool definitions, as the property strategies draw them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zork_mcp.adapters.mcp.fake import FakeToolServer


def server_offering(name: str, definitions: Mapping[str, Mapping[str, Any]]) -> FakeToolServer:
    """A server with these tools (name -> {description, inputSchema}); each answers None."""
    return FakeToolServer(
        name,
        {tool: _nothing for tool in definitions},
        descriptions={tool: d["description"] for tool, d in definitions.items()},
        schemas={tool: d["inputSchema"] for tool, d in definitions.items()},
    )


def _nothing(**_: Any) -> None:
    return None
