"""The MCP server configuration file (`mcp_config.json`, Claude Desktop's `mcpServers` format)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.servers.config_advice import CLI_SWITCHES
from zork_mcp.domain.servers.confinement import DEFAULT_SANDBOX, Sandbox
from zork_mcp.domain.servers.protocol_era import checked_pin
from zork_mcp.domain.tools.tool_offer import ToolFilter
from zork_mcp.domain.tools.tool_schema import SERVER_SEPARATOR
from zork_mcp.domain.validation import describe_validation_error


class ToolChoice(BaseModel):
    """Which of a server's tools to offer (Gemini CLI's `includeTools`/`excludeTools`):
    shell globs matched against the tool's name on its server; exclusion wins."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    include_tools: tuple[str, ...] | None = Field(default=None, alias="includeTools")
    exclude_tools: tuple[str, ...] = Field(default=(), alias="excludeTools")

    @property
    def tool_filter(self) -> ToolFilter:
        return ToolFilter(self.include_tools, self.exclude_tools)

    def filtered(self, more: ToolFilter) -> Self:
        """This server with `more` (from [tool.zorkgpt.mcp]) merged into its filter."""
        merged = self.tool_filter.merged(more)
        return self.model_copy(
            update={"include_tools": merged.include, "exclude_tools": merged.exclude}
        )


class ServerEntry(ToolChoice):
    """What every server's entry may say besides how to reach it: which tools to offer, the
    protocol version to speak (`"protocol"`; by default the newest the server supports), and
    the MCP roots our client names to it (`"roots"`: none by default, so a server keeps the
    folders its own command line names; `true`: its own folder; or a list of folders)."""

    protocol: str | None = None
    roots: bool | tuple[str, ...] = False

    @field_validator("roots")
    @classmethod
    def _root_folders(cls, roots: bool | tuple[str, ...]) -> bool | tuple[str, ...]:
        for path in () if isinstance(roots, bool) else roots:
            if not path.startswith(("/", "~/")):
                raise ValueError(
                    f"roots has {path!r}: write each folder absolute (/...) or from the home "
                    "folder (~/...), or write true for the server's own folder"
                )
        return roots

    @field_validator("protocol")
    @classmethod
    def _known_version(cls, protocol: str | None) -> str | None:
        return None if protocol is None else checked_pin(protocol)


class MCPServerConfig(ServerEntry):
    """How to launch one MCP server over stdio."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    sandbox: Sandbox | None = DEFAULT_SANDBOX  # None: `"sandbox": false`, unconfined

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox(cls, value: Any) -> Any:
        if value is True:
            return DEFAULT_SANDBOX
        if value is False:
            return None
        if not isinstance(value, Mapping | Sandbox):
            raise ValueError(
                f"sandbox is {value!r}: write true (the default), false (unconfined) or "
                '{"read": [...], "write": [...], "connect_ports": [...], "hosts": [...]}'
            )
        return value

    def command_line(self) -> str:
        return " ".join([self.command, *self.args])


HTTP_TYPES = ("http", "streamable-http", "streamable_http", "streamableHttp")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class MCPHttpServerConfig(ServerEntry):
    """A remote MCP server spoken to over Streamable HTTP. Header values may hold secrets:
    they never appear in a repr, a log or an error, only header and variable names do."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    type: Literal[HTTP_TYPES] = "http"  # type: ignore[valid-type]
    url: str
    headers: Mapping[str, str] = Field(default_factory=dict, repr=False)

    @model_validator(mode="before")
    @classmethod
    def _not_also_a_command(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "command" in data:
            raise ValueError(
                'has both "command" and "url": a server is either launched locally '
                "(command) or reached over HTTP (url). Keep one of them."
            )
        return data

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(
                f"url {url!r} is not an http:// or https:// address with a host, "
                "e.g. http://127.0.0.1:8000/mcp"
            )
        return url

    def resolved_headers(self, env: Mapping[str, str], server: str) -> dict[str, str]:
        """The headers with every ${VAR} replaced from `env`; an unset one is an error."""
        return {name: _expand(value, env, server, name) for name, value in self.headers.items()}

    def header_sources(self) -> str:
        """Which headers and variables to check, without any header value ('' for none)."""
        return ", ".join(_source(name, value) for name, value in self.headers.items())


def _expand(value: str, env: Mapping[str, str], server: str, header: str) -> str:
    def replace(match: re.Match[str]) -> str:
        variable = match.group(1)
        if variable not in env:
            raise MCPConfigError(
                f"server '{server}': header {header} uses ${{{variable}}}, but {variable} is "
                f"not set. Export it (e.g. `export {variable}=...`) or remove the header."
            )
        return env[variable]

    return _VARIABLE.sub(replace, value)


def _source(header: str, value: str) -> str:
    variables = _VARIABLE.findall(value)
    if not variables:
        return f"the {header} header"
    return f"the {header} header (from {', '.join('$' + v for v in variables)})"


def _transport(entry: Any) -> str:
    if not isinstance(entry, Mapping):
        return "stdio"
    if "url" in entry or entry.get("type", "stdio") != "stdio":
        return "http"
    return "stdio"


TransportEntry = Annotated[  # an entry read as its transport's config
    Annotated[MCPServerConfig, Tag("stdio")] | Annotated[MCPHttpServerConfig, Tag("http")],
    Discriminator(_transport),
]
AnyServerConfig = MCPServerConfig | MCPHttpServerConfig


class MCPConfig(BaseModel):
    """Root of `mcp_config.json`: server name to launch configuration."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    mcpServers: dict[str, TransportEntry]

    @field_validator("mcpServers")
    @classmethod
    def _names_are_routable(cls, servers: dict[str, AnyServerConfig]) -> dict[str, AnyServerConfig]:
        for name in servers:
            if not name or SERVER_SEPARATOR in name:
                raise ValueError(
                    f"server name {name!r} must be non-empty and contain no "
                    f"'{SERVER_SEPARATOR}' (tools are named '<server>{SERVER_SEPARATOR}<tool>')"
                )
        return servers

    def chosen(self, names: Sequence[str] | None, *, source: str) -> dict[str, AnyServerConfig]:
        """The servers to use, in config order: every one, or those `names` picks (an
        MCPConfigError names a server the config lacks; `source` says where it was picked)."""
        if names is None:
            return dict(self.mcpServers)
        unknown = [name for name in names if name not in self.mcpServers]
        if unknown or not names:
            raise MCPConfigError(
                f"{source} picks the servers {list(names)}, but the MCP config has "
                f"{list(self.mcpServers)}: name one or more of those, or leave it out for all."
            )
        return {name: c for name, c in self.mcpServers.items() if name in names}


def with_tool_filters(
    servers: Mapping[str, AnyServerConfig], filters: Mapping[str, ToolFilter], *, source: str
) -> dict[str, AnyServerConfig]:
    """The servers with `filters` (by server name, from `source`) merged into their own."""
    unknown = sorted(set(filters) - set(servers))
    if unknown:
        raise MCPConfigError(
            f"{source} filters the tools of {unknown}, but the servers in use are "
            f"{list(servers)}: name one of those, or remove the filter."
        )
    return {
        name: config.filtered(filters[name]) if name in filters else config
        for name, config in servers.items()
    }


def by_transport(
    servers: Mapping[str, AnyServerConfig],
) -> tuple[dict[str, MCPServerConfig], dict[str, MCPHttpServerConfig]]:
    """(stdio servers, HTTP servers), each in config order."""
    stdio = {n: c for n, c in servers.items() if isinstance(c, MCPServerConfig)}
    http = {n: c for n, c in servers.items() if isinstance(c, MCPHttpServerConfig)}
    return stdio, http


def parse_mcp_config(text: str, *, source: str, off: str = CLI_SWITCHES.off) -> MCPConfig:
    """Parse and validate the JSON text of an MCP config file (requirements 2.2, 2.3); `off`:
    how this run plays without MCP."""
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
            '"env": {...}}}} or, for a remote server, {"<name>": {"type": "http", '
            '"url": "http://...", "headers": {"Authorization": "Bearer ${TOKEN}"}}}'
        ) from e
    if not config.mcpServers:
        raise MCPConfigError(
            f'{source} configures no MCP server: add one under "mcpServers", '
            f"or play without MCP: {off}."
        )
    return config
