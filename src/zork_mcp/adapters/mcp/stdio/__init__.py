"""MCP servers as local processes speaking JSON-RPC over their stdin and stdout."""
