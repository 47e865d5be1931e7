"""Our HTTP MCP client as the conformance suite's client under test.

The suite starts a server for one scenario and runs `python -m tests.conformance.client URL`
with the scenario's name in MCP_CONFORMANCE_SCENARIO (and any data it needs, such as the tool
calls to make, in MCP_CONFORMANCE_CONTEXT). This does what the agent does with a server:
open a session through McpHttpToolServer (connect, list tools), call tools, close. A scenario
listed as not applicable (OAuth, elicitation) ends at once, before the MCP SDK is loaded:
spawning a full client for each of the suite's thirty-odd OAuth scenarios would double the run.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tests.conformance.applicability import not_applicable

if TYPE_CHECKING:
    from zork_mcp.domain.tools.tool_schema import ToolSpec

SERVER = "conformance"
CALL_TIMEOUT_SECONDS = 10.0
EXAMPLES: Mapping[str, Any] = {
    "string": "conformance",
    "integer": 2,
    "number": 1.5,
    "boolean": True,
    "object": {},
    "array": [],
    "null": None,
}

Call = tuple[str, dict[str, Any]]


def example_arguments(spec: ToolSpec) -> dict[str, Any]:
    """A value of the declared type for each required property: what a model would send."""
    properties = spec.input_schema.get("properties") or {}
    arguments = {}
    for name in spec.input_schema.get("required") or []:
        kind = (properties.get(name) or {}).get("type", "string")
        arguments[name] = EXAMPLES.get(kind if isinstance(kind, str) else kind[0], "")
    return arguments


def calls_for(scenario: str, context: Mapping[str, Any], tools: Sequence[ToolSpec]) -> list[Call]:
    """The tool calls a scenario asks for: named in its context, or (when it names none)
    every tool our client offers, with arguments of the declared types."""
    if "toolCalls" in context:
        return [(call["name"], dict(call.get("arguments") or {})) for call in context["toolCalls"]]
    if scenario == "json-schema-2020-12-preservation":
        focal = next(spec for spec in tools if spec.name == "json_schema_2020_12_tool")
        return [("json_schema_echo", {"schema": dict(focal.input_schema)})]
    return [(spec.name, example_arguments(spec)) for spec in tools]


async def run(url: str, scenario: str, context: Mapping[str, Any]) -> None:
    from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
    from zork_mcp.domain.servers.server_config import MCPHttpServerConfig
    from zork_mcp.domain.tools.tool_schema import canonical_name

    server = McpHttpToolServer({SERVER: MCPHttpServerConfig(url=url)})
    async with server.open_session() as session:
        print(f"tools: {[spec.name for spec in session.tools]}")
        for tool, arguments in calls_for(scenario, context, session.tools):
            name = canonical_name(SERVER, tool)
            result = await session.call_tool(name, arguments, CALL_TIMEOUT_SECONDS)
            print(f"{tool}: is_error={result.is_error} {result.to_dict()}")


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.conformance.client SERVER_URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    reason = not_applicable("client", scenario)
    if reason is not None:
        print(f"{scenario} does not apply to our client: {reason}", file=sys.stderr)
        return 1
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    asyncio.run(run(argv[0], scenario, context))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
