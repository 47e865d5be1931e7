"""What a run advises when its MCP config is missing or empty, in the words of the entry point
it was run from (`zork-mcp`'s flags, a sweep's, an Inspect task's parameters), naming only the
files there are."""

from __future__ import annotations

from dataclasses import dataclass

from zork_mcp.domain.errors import MCPConfigError

# An MCP config that works wherever zork_mcp is installed: our reasoning server.
EXAMPLE = '{"mcpServers": {"reasoning": {"command": "python", "args": ["-m", "zork_mcp.servers.reasoning"]}}}'  # noqa: E501


@dataclass(frozen=True)
class McpSwitches:
    """How an entry point spells naming the servers' config file and turning MCP on and off."""

    config: str = "--mcp-config PATH"
    on: str = "--mcp"
    off: str = "--no-mcp"


CLI_SWITCHES = McpSwitches()


@dataclass(frozen=True)
class McpConfigOrigin:
    """Where a run's MCP config came from: named by `switches.config` or by the pyproject
    (None: there is none), and whether `switches.on` turned MCP on or the pyproject did."""

    switches: McpSwitches = CLI_SWITCHES
    named: bool = False
    pyproject: str | None = None
    turned_on: bool = False

    @property
    def why_on(self) -> str:
        if self.turned_on or self.pyproject is None:
            return self.switches.on
        return f"enabled = true in [tool.zorkgpt.mcp] of {self.pyproject}"

    @property
    def off(self) -> str:
        """How to play without MCP: the switch, and the pyproject where it turned MCP on."""
        if self.turned_on or self.pyproject is None:
            return self.switches.off
        return (
            f"{self.switches.off}, or set enabled = false in [tool.zorkgpt.mcp] of {self.pyproject}"
        )


def missing_config_error(path: str, origin: McpConfigOrigin) -> MCPConfigError:
    """The error for an absent config file while MCP is on (requirement 2.2)."""
    if origin.named:
        return MCPConfigError(
            f"MCP config file not found: {path} (named by {origin.switches.config})\n"
            f"Please either:\n"
            f"  1. name a file that exists, or create this one, e.g. {EXAMPLE}, or\n"
            f"  2. play without MCP: {origin.off}."
        )
    if origin.pyproject is None:
        return MCPConfigError(
            f"MCP is on ({origin.why_on}) but no MCP config file was found: {path} (there is "
            f"no pyproject.toml here to name another)\n"
            f"Please either:\n"
            f"  1. name the servers' config file with {origin.switches.config},\n"
            f"  2. create {path}, e.g. {EXAMPLE}, or\n"
            f"  3. play without MCP: {origin.off}."
        )
    return MCPConfigError(
        f"MCP is on ({origin.why_on}) but its config file was not found: {path} (config_file "
        f"of [tool.zorkgpt.mcp] in {origin.pyproject}, relative to its folder)\n"
        f"Please either:\n"
        f"  1. create {path}, e.g. {EXAMPLE},\n"
        f"  2. name another file with {origin.switches.config}, or\n"
        f"  3. play without MCP: {origin.off}."
    )
