"""An MCP server whose one tool says who the client said it was in `initialize`."""

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("whoami", version="9.9")


@server.tool()
def client(ctx: Context) -> str:
    """The client's name and version, as it introduced itself."""
    info = ctx.session.client_params.client_info
    return f"{info.name} {info.version}"


if __name__ == "__main__":
    server.run()
