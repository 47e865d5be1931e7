"""An MCP server whose tools ask the client for input before they answer (run as a script).

In the stateless era: `sample` and `elicit` answer `input_required` asking for sampling or
elicitation, `nag` asks for the roots again on every round; in either era `roots` gets the
client's roots through the SDK's `Resolve(ListRoots)` and answers them as JSON.
"""

import json
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp.types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsRequest,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)

from zork_mcp.servers.stdio import serve_stdio

server = MCPServer("asking")
HI = SamplingMessage(role="user", content=TextContent(type="text", text="hi"))


@server.tool()
async def sample(ctx: Context) -> InputRequiredResult | str:
    if ctx.input_responses:
        return "sampled"
    params = CreateMessageRequestParams(messages=[HI], max_tokens=5)
    return InputRequiredResult(input_requests={"s": CreateMessageRequest(params=params)})


@server.tool()
async def elicit(ctx: Context) -> InputRequiredResult | str:
    if ctx.input_responses:
        return "elicited"
    params = ElicitRequestFormParams(
        message="?", requested_schema={"type": "object", "properties": {}}
    )
    return InputRequiredResult(input_requests={"e": ElicitRequest(params=params)})


@server.tool()
async def nag(ctx: Context) -> InputRequiredResult | str:
    state = str(int(ctx.request_state or "0") + 1)
    return InputRequiredResult(input_requests={"r": ListRootsRequest()}, request_state=state)


async def ask() -> ListRoots:
    return ListRoots()


@server.tool()
async def roots(given: Annotated[ListRootsResult, Resolve(ask)]) -> str:
    return json.dumps([[str(root.uri), root.name] for root in given.roots])


if __name__ == "__main__":
    anyio.run(serve_stdio, server)
