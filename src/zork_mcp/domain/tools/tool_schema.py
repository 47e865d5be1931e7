"""MCP tools as the domain sees them, their canonical `server.tool` names, and the definitions
a request offers the LLM (requirement 8)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

SERVER_SEPARATOR = "."
EMPTY_OBJECT_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True)
class ToolSpec:
    """One tool discovered on one MCP server."""

    server: str
    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: dict(EMPTY_OBJECT_SCHEMA))

    @property
    def canonical_name(self) -> str:
        return canonical_name(self.server, self.name)


def canonical_name(server: str, tool: str) -> str:
    """`{server_name}.{tool_name}` (requirement 8.2, property 34)."""
    if not server or SERVER_SEPARATOR in server:
        raise ValueError(f"server name {server!r} must be non-empty and contain no '.'")
    if not tool:
        raise ValueError("tool name must be non-empty")
    return f"{server}{SERVER_SEPARATOR}{tool}"


def split_canonical_name(name: str) -> tuple[str, str]:
    """Split `server.tool` for routing; the tool part may itself contain dots (requirement 8.3)."""
    server, sep, tool = name.partition(SERVER_SEPARATOR)
    if not sep or not server or not tool:
        raise ValueError(
            f"Invalid tool name format: {name!r}. Expected format: {{server_name}}.{{tool_name}}"
        )
    return server, tool


@dataclass(frozen=True)
class ToolDefinition:
    """A tool as a request offers it to the LLM: its canonical name, what it does, and its
    parameters' JSON schema (an object schema). Each LLM adapter renders it in its provider's
    form; none reads another provider's."""

    name: str
    description: str
    parameters: Mapping[str, Any]


def tool_definition(spec: ToolSpec) -> ToolDefinition:
    """The tool as offered, with inputSchema as its parameters (requirements 8.1, 8.4)."""
    return ToolDefinition(spec.canonical_name, spec.description, _object_schema(spec.input_schema))


def tool_definitions(specs: Iterable[ToolSpec]) -> tuple[ToolDefinition, ...]:
    """Every tool, translated, in discovery order (requirements 8.5, 8.6)."""
    return tuple(tool_definition(spec) for spec in specs)


def openai_function_tool(definition: ToolDefinition) -> dict[str, Any]:
    """The definition in OpenAI's function-tool form, by which the domain weighs it
    (`definition_json`). No request sends it from here."""
    return {
        "type": "function",
        "function": {
            "name": definition.name,
            "description": definition.description,
            "parameters": dict(definition.parameters),
        },
    }


def definition_json(definition: ToolDefinition) -> str:
    """The definition as a request's size counts it (`domain/llm/tokens.py`): the offer's
    budget measures these characters, a request's measure adds them up."""
    return weighed_json(openai_function_tool(definition))


def weighed_json(part: Mapping[str, Any]) -> str:
    """A part of a request in OpenAI's form (a tool definition, a message, a response format)
    as the one measure of a request reads it: its JSON, each character as itself (not a `\\u`
    escape), anything JSON has no form for as its text. It lives here, below the LLM exchange,
    so that the offer's budget reads definitions by it too."""
    return json.dumps(part, ensure_ascii=False, default=str)


def _object_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    # OpenAI rejects a function whose parameters are not an object schema.
    result = dict(schema) if schema else dict(EMPTY_OBJECT_SCHEMA)
    result.setdefault("type", "object")
    if result["type"] == "object":
        result.setdefault("properties", {})
    return result
