"""How a config's stdio servers start: the start plan, decided once from the tool server's
settings and given to whoever starts them. Whether any is forked, and from whose fork
server, is the plan's to say; the fork server itself is this package's own business."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zork_mcp.adapters.mcp.stdio.fork_server import fork_supported, is_forkable
from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.settings import ServerStart


@dataclass(frozen=True)
class StartPlan:
    """How a config's stdio servers start: decided once, then given to whoever starts them."""

    forks: bool  # a fork server serves at least one of them
    shared: bool = False  # fork from the process's fork server (every run in it), not one's own


def plan_starts(
    servers: Mapping[str, MCPServerConfig], env: Mapping[str, str], server_start: ServerStart
) -> StartPlan:
    """Whether any server is started by fork; with "fork", every server must be forkable."""
    if server_start == "spawn" or not fork_supported():
        return StartPlan(forks=False)
    forkable = {name: is_forkable(config, env, name) for name, config in servers.items()}
    refused = [name for name, ok in forkable.items() if not ok]
    if server_start == "fork" and refused:
        raise MCPConfigError(
            f'server_start = "fork", but {", ".join(refused)} cannot be forked: only '
            f"`python -m module` or `python script.py` (this interpreter, no flags) can. "
            f'Use server_start = "auto" to spawn those and fork the rest.'
        )
    return StartPlan(forks=any(forkable.values()))
