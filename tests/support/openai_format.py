"""What makes a valid tool definition: the domain's typed one, and OpenAI's function-tool
form of it, checked key by key."""

from __future__ import annotations

import json
from typing import Any

from zork_mcp.domain.tools.tool_schema import ToolDefinition


def assert_tool_definition(tool: Any) -> None:
    assert isinstance(tool, ToolDefinition)
    assert isinstance(tool.name, str) and tool.name
    assert isinstance(tool.description, str)
    _assert_object_schema(tool.parameters)


def assert_openai_tool(tool: Any) -> None:
    assert isinstance(tool, dict) and set(tool) == {"type", "function"}
    assert tool["type"] == "function"
    function = tool["function"]
    assert set(function) == {"name", "description", "parameters"}
    assert isinstance(function["name"], str) and function["name"]
    assert isinstance(function["description"], str)
    _assert_object_schema(function["parameters"])
    json.dumps(tool, allow_nan=False)


def _assert_object_schema(parameters: Any) -> None:
    assert isinstance(parameters, dict) and parameters["type"] == "object"
    assert isinstance(parameters["properties"], dict)
    assert set(parameters.get("required", [])) <= set(parameters["properties"])
    json.dumps(parameters, allow_nan=False)
