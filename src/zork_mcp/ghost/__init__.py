"""MCP-Ghost: a programmatic multi-provider MCP client (spec 004) on the agent's tool loop."""

from zork_mcp.domain.errors import NestedEventLoopError
from zork_mcp.ghost.result import GhostResult, GhostResultDict
from zork_mcp.ghost.run import mcp_ghost, mcp_ghost_sync

__all__ = ["GhostResult", "GhostResultDict", "NestedEventLoopError", "mcp_ghost", "mcp_ghost_sync"]
