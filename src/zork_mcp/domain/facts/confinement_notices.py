"""What a run's start says of confinement (issue 47): which of the policy
(domain/servers/confinement.py) the kernel cannot enforce, for the MCP servers and for the
game's emulator; never a silent no-op."""

from __future__ import annotations

from collections.abc import Sequence

from zork_mcp.domain.facts.events import Event, EventType, Level

FILES, NETWORK, SCOPES = "files", "TCP connections", "signals and abstract unix sockets"
NET_ABI, SCOPE_ABI = 4, 6  # the Landlock ABI that first filters TCP ports; that scopes


def unenforced(abi: int, *, scoped: bool = True) -> tuple[str, ...]:
    """What a kernel offering Landlock ABI `abi` (0: none, or not Linux) cannot enforce."""
    if abi < 1:
        return (FILES, NETWORK, SCOPES)
    missing = []
    if abi < NET_ABI:
        missing.append(NETWORK)
    if scoped and abi < SCOPE_ABI:
        missing.append(SCOPES)
    return tuple(missing)


def sandbox_notices(
    *,
    enabled: bool,
    unconfined_servers: Sequence[str],
    servers: Sequence[str],
    abi: int,
    host_listed: Sequence[str] = (),
    namespaces: bool = True,
) -> list[Event]:
    """What an episode's start says of its servers' confinement: off (globally, or for the
    servers whose entry says `"sandbox": false`), or degraded by the kernel (too old a
    Landlock; or no user namespaces, so the servers that list `hosts` get no network);
    nothing when every server is confined as its entry says."""
    if not servers:
        return []
    if not enabled:
        text = "MCP servers run unconfined: [tool.zorkgpt.mcp] sandbox = false"
        return [Event(EventType.MCP_SANDBOX_OFF, text, Level.WARNING, {"servers": list(servers)})]
    events = []
    if unconfined_servers:
        names = list(unconfined_servers)
        text = f'MCP servers {", ".join(names)} run unconfined: their entry says "sandbox": false'
        events.append(Event(EventType.MCP_SANDBOX_OFF, text, Level.WARNING, {"servers": names}))
    confined = [name for name in servers if name not in unconfined_servers]
    missing = unenforced(abi)
    if missing and confined:
        what = "Landlock" if abi < 1 else f"Landlock ABI {abi}"
        text = (
            f"the kernel offers {'no ' if abi < 1 else ''}{what}: MCP servers "
            f"{', '.join(confined)} run with {', '.join(missing)} unconfined"
        )
        fields = {"abi": abi, "unconfined": list(missing), "servers": confined}
        events.append(Event(EventType.MCP_SANDBOX_DEGRADED, text, Level.WARNING, fields))
    listed = [name for name in host_listed if name in confined]
    if listed and not namespaces:
        text = (
            f"the kernel lets no process make a user namespace: MCP servers {', '.join(listed)} "
            'run with no network, as their host lists ("sandbox": {"hosts": [...]}) '
            "cannot be kept"
        )
        fields = {"namespaces": False, "unconfined": [], "servers": listed}
        events.append(Event(EventType.MCP_SANDBOX_DEGRADED, text, Level.WARNING, fields))
    return events


def game_notice(abi: int) -> Event | None:
    """What a game's start says when the kernel (Landlock ABI `abi`) cannot confine its
    emulator whole; None when it can."""
    missing = unenforced(abi)
    if not missing:
        return None
    what = "no Landlock" if abi < 1 else f"Landlock ABI {abi}"
    text = (
        f"the kernel offers {what}: the game's emulator runs with {', '.join(missing)} unconfined"
    )
    fields = {"abi": abi, "unconfined": list(missing)}
    return Event(EventType.GAME_SANDBOX_DEGRADED, text, Level.WARNING, fields)
