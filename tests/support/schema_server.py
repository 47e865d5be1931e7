"""An MCP server whose one tool declares the output schema given on its command line and
answers `{"n": <its argument n>}` unchecked, so a client's output validation shows.

    python schema_server.py '<output schema as JSON>'
"""

import json
import sys

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def build(schema: dict) -> Server:
    async def list_tools(ctx, params) -> types.ListToolsResult:
        tool = types.Tool(name="count", input_schema={"type": "object"}, output_schema=schema)
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx, params) -> types.CallToolResult:
        n = (params.arguments or {}).get("n")
        text = types.TextContent(type="text", text=json.dumps({"n": n}))  # its serialization
        return types.CallToolResult(content=[text], structured_content={"n": n})

    return Server("schema", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(schema: dict) -> None:
    server = build(schema)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main, json.loads(sys.argv[1]))
