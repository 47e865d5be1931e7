"""`python -m zork_mcp.inspect`: the same as `zork-mcp-inspect`."""

from zork_mcp.inspect.command import run

run()
