"""MCP servers reached over Streamable HTTP with the SDK's client."""
