"""The MCP server configuration file (`mcp_config.json`, Claude Desktop's `mcpServers` format)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.tool_schema import SERVER_SEPARATOR
from zork_mcp.domain.validation import describe_validation_error


class MCPServerConfig(BaseModel):
    """How to launch one MCP server over stdio."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None

    def command_line(self) -> str:
        return " ".join([self.command, *self.args])


class MCPConfig(BaseModel):
    """Root of `mcp_config.json`: server name to launch configuration."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    mcpServers: dict[str, MCPServerConfig]

    @field_validator("mcpServers")
    @classmethod
    def _names_are_routable(cls, servers: dict[str, MCPServerConfig]) -> dict[str, MCPServerConfig]:
        for name in servers:
            if not name or SERVER_SEPARATOR in name:
                raise ValueError(
                    f"server name {name!r} must be non-empty and contain no "
                    f"'{SERVER_SEPARATOR}' (tools are named '<server>{SERVER_SEPARATOR}<tool>')"
                )
        return servers

    def first_server(self) -> tuple[str, MCPServerConfig]:
        """The server the agent uses: V1 takes the first entry only (requirement 2.6)."""
        name = next(iter(self.mcpServers))
        return name, self.mcpServers[name]

    def agent_servers(self) -> dict[str, MCPServerConfig]:
        """The servers the agent connects to: only the first (2.6); MCP-Ghost uses them all."""
        name, server = self.first_server()
        return {name: server}


def parse_mcp_config(text: str, *, source: str) -> MCPConfig:
    """Parse and validate the JSON text of an MCP config file (requirements 2.2, 2.3)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MCPConfigError(
            f"{source} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}. "
            f"Fix the syntax there (a trailing comma or a missing quote is the usual cause)."
        ) from e
    try:
        config = MCPConfig.model_validate(data)
    except ValidationError as e:
        raise MCPConfigError(
            f"{source} does not have the expected shape:\n{describe_validation_error(e)}\n"
            'Expected: {"mcpServers": {"<name>": {"command": "...", "args": [...], '
            '"env": {...}}}}'
        ) from e
    if not config.mcpServers:
        raise MCPConfigError(
            f'{source} configures no MCP server: add one under "mcpServers", '
            f"or set enabled = false in [tool.zorkgpt.mcp]."
        )
    return config


def missing_config_error(path: str) -> MCPConfigError:
    """The error for an absent config file while MCP is enabled (requirement 2.2)."""
    return MCPConfigError(
        f"MCP is enabled but its config file was not found: {path}\n"
        f"Please either:\n"
        f"  1. create {path} (see mcp_config.json in the project root for an example), or\n"
        f"  2. set enabled = false in [tool.zorkgpt.mcp] of your pyproject.toml."
    )
