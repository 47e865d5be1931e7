"""Our own MCP servers, runnable with `python -m zork_mcp.servers.<name>` (no Node needed)."""
