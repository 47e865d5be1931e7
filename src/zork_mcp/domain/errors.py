"""The error hierarchy. Every message says what went wrong, where, and how to fix it."""


class ZorkMcpError(Exception):
    """Root of every error this package raises on purpose."""


class ConfigurationError(ZorkMcpError):
    """A settings or configuration file is missing, malformed or inconsistent."""


class EpisodeFolderError(ConfigurationError):
    """An episode's log folder cannot take the run: a new episode where one already is."""


class MCPError(ZorkMcpError):
    """Base exception for MCP-related errors (design: Error Models)."""


class MCPConfigError(MCPError, ConfigurationError):
    """The MCP server configuration (mcp_config.json) cannot be used."""


class ServerFileError(MCPError):
    """A file an MCP server keeps in its own folder is not one the agent can read (a link,
    a pipe, a socket, a device): that server's failure, never the episode's."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path, self.reason = path, reason


class MCPServerStartupError(MCPError):
    """MCP servers could not be started, initialized or listed (requirement 6.1).

    `servers` names the ones that failed; empty means the failure was not one server's."""

    def __init__(self, message: str, *, servers: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.servers = servers


class MCPToolCallError(MCPError):
    """A tool call could not be carried out by the protocol (not a tool's own error)."""


class MCPToolTimeoutError(MCPToolCallError):
    """A tool call exceeded its timeout; the session may still be usable."""

    def __init__(self, tool_name: str, timeout_seconds: float) -> None:
        super().__init__(f"Tool call '{tool_name}' timed out after {timeout_seconds:g}s")
        self.tool_name = tool_name
        self.timeout_seconds = timeout_seconds


class MCPSessionBrokenError(MCPToolCallError):
    """The tool server's session is gone (process died, pipe closed): stop calling tools."""


class LLMError(ZorkMcpError):
    """An LLM provider call failed after its retries. The message never holds a secret."""

    def __init__(self, message: str, *, provider: str | None = None, status: int | None = None):
        super().__init__(message)
        self.provider = provider
        self.status = status


class GameHaltedError(ZorkMcpError):
    """The Z-machine stopped with a runtime error; the episode cannot go on."""


class GameEmulatorLostError(ZorkMcpError):
    """The game process died and no new one could take over the game where it was."""


class NestedEventLoopError(ZorkMcpError, RuntimeError):
    """A synchronous API (agent.decide, mcp_ghost_sync) was called inside a running event loop."""
