"""What a run's start says of confinement (issue 47): what of the policy the kernel cannot
enforce (`unenforced`, domain/servers/confinement.py), for the MCP servers and for the game's
emulator, as typed notices; never a silent no-op."""

from __future__ import annotations

from collections.abc import Sequence

from zork_mcp.domain.facts.events import Event, Level
from zork_mcp.domain.facts.notice_facts import GameSandboxDegraded, SandboxDegraded, SandboxOff
from zork_mcp.domain.servers.confinement import NAMESPACED, unenforced


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
    Landlock; or no user namespaces, so no server's tree is sealed and the servers that list
    `hosts` get no network); nothing when every server is confined as its entry says."""
    if not servers:
        return []
    if not enabled:
        text = "MCP servers run unconfined: [tool.zorkgpt.mcp] sandbox = false"
        return [Event.about(SandboxOff(list(servers)), text, Level.WARNING)]
    events = []
    if unconfined_servers:
        names = list(unconfined_servers)
        text = f'MCP servers {", ".join(names)} run unconfined: their entry says "sandbox": false'
        events.append(Event.about(SandboxOff(names), text, Level.WARNING))
    confined = [name for name in servers if name not in unconfined_servers]
    missing = unenforced(abi)
    if missing and confined:
        what = "Landlock" if abi < 1 else f"Landlock ABI {abi}"
        text = (
            f"the kernel offers {'no ' if abi < 1 else ''}{what}: MCP servers "
            f"{', '.join(confined)} run with {', '.join(missing)} unconfined"
        )
        degraded = SandboxDegraded(confined, list(missing), abi=abi)
        events.append(Event.about(degraded, text, Level.WARNING))
    if confined and not namespaces:
        text = (
            f"the kernel lets no process make a user namespace: MCP servers {', '.join(confined)} "
            f"run with {' and '.join(NAMESPACED)} unconfined"
        )
        loose = SandboxDegraded(confined, list(NAMESPACED), namespaces=False)
        events.append(Event.about(loose, text, Level.WARNING))
    listed = [name for name in host_listed if name in confined]
    if listed and not namespaces:
        text = (
            f"the kernel lets no process make a user namespace: MCP servers {', '.join(listed)} "
            'run with no network, as their host lists ("sandbox": {"hosts": [...]}) '
            "cannot be kept"
        )
        cut_off = SandboxDegraded(listed, [], namespaces=False)
        events.append(Event.about(cut_off, text, Level.WARNING))
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
    return Event.about(GameSandboxDegraded(abi, list(missing)), text, Level.WARNING)
