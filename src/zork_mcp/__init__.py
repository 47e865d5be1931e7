"""zork_mcp: an LLM agent that plays Zork I and may call MCP tools while it decides."""

__version__ = "0.1.0"
