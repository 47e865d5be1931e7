"""What makes a valid OpenAI function-tool definition, checked key by key."""

from __future__ import annotations

import json
from typing import Any


def assert_openai_tool(tool: Any) -> None:
    assert isinstance(tool, dict) and set(tool) == {"type", "function"}
    assert tool["type"] == "function"
    function = tool["function"]
    assert set(function) == {"name", "description", "parameters"}
    assert isinstance(function["name"], str) and function["name"]
    assert isinstance(function["description"], str)
    parameters = function["parameters"]
    assert isinstance(parameters, dict) and parameters["type"] == "object"
    assert isinstance(parameters["properties"], dict)
    assert set(parameters.get("required", [])) <= set(parameters["properties"])
    json.dumps(tool, allow_nan=False)
