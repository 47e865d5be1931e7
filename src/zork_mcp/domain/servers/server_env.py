"""The environment a tool server process gets (requirement 3.2), without our secrets.

The system environment is inherited, except variables whose names look like credentials
(API keys, tokens, secrets, passwords): a third-party server gets those only when its own
config names them. A configured value `${NAME}` is taken from the system environment, so
a secret can be passed on without being written into mcp_config.json.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from zork_mcp.domain.errors import MCPConfigError

SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
_REFERENCE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def is_secret_name(name: str) -> bool:
    return SECRET_NAME.search(name) is not None


def server_environment(
    system: Mapping[str, str], configured: Mapping[str, str] | None, *, server: str
) -> dict[str, str]:
    """The system environment minus secrets, with the server's configured variables over it."""
    inherited = {name: value for name, value in system.items() if not is_secret_name(name)}
    explicit = {
        name: _expand(name, value, system, server) for name, value in (configured or {}).items()
    }
    return inherited | explicit


def _expand(name: str, value: str, system: Mapping[str, str], server: str) -> str:
    reference = _REFERENCE.match(value)
    if reference is None:
        return value
    source = reference.group(1)
    if source not in system:
        raise MCPConfigError(
            f"mcpServers.{server}.env.{name} is {value!r}, but {source} is not set in the "
            f"environment. Set {source}, or write the value itself in the config."
        )
    return system[source]
