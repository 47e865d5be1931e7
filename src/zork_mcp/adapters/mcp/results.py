"""MCP tool listings and call results as the domain's ToolSpec and ToolCallResult."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp.types as types

from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import ToolSpec


def to_spec(server: str, tool: types.Tool) -> ToolSpec:
    return ToolSpec(server, tool.name, tool.description or "", dict(tool.input_schema or {}))


def to_result(result: types.CallToolResult, wrapped: bool) -> ToolCallResult:
    content = _content_of(result, wrapped)
    if result.is_error:
        return ToolCallResult.failure(_as_text(content) or "the tool reported an error")
    return ToolCallResult.success(content)


def wraps_result(output_schema: Mapping[str, Any] | None) -> bool:
    """MCPServer wraps a primitive return as {"result": value} with a one-field schema."""
    properties = (output_schema or {}).get("properties", {})
    return set(properties) == {"result"}


def _content_of(result: types.CallToolResult, wrapped: bool) -> Any:
    structured = result.structured_content
    if structured is None:
        items = [_block(block) for block in result.content]
        return items[0] if len(items) == 1 else items
    if wrapped and set(structured) == {"result"}:
        return structured["result"]
    return structured


def _block(block: Any) -> Any:
    if isinstance(block, types.TextContent):
        return block.text
    data = block.model_dump(mode="json", exclude_none=True)
    if isinstance(data.get("data"), str):
        data["data"] = f"<{len(data['data'])} base64 characters omitted>"
    return data


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(item if isinstance(item, str) else str(item) for item in content)
    return str(content)
