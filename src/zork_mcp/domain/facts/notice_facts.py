"""What the run's notices say, typed as the loop's are (`LoopFact`: a type per event kind,
its fields written and read back through it): a server's connect retried, disabled or
recovered; confinement off or degraded; a host a server may not reach; the game's process
replaced; the fork server lost. A notice's place, where it has one, is its `EventPlace`."""

from __future__ import annotations

from dataclasses import dataclass

from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.facts.loop_facts import LoopFact


@dataclass(frozen=True)
class ConnectRetried(LoopFact):
    """A server failed to connect; it is tried again (requirements 6.7-6.10)."""

    kind = EventType.MCP_CONNECT_RETRY
    server: str
    error: str


@dataclass(frozen=True)
class ServerDisabled(LoopFact):
    """A server failed again after its retry: the episode goes on without it."""

    kind = EventType.MCP_DISABLED_FALLBACK
    server: str
    error: str


@dataclass(frozen=True)
class ConnectRecovered(LoopFact):
    kind = EventType.MCP_CONNECT_RETRY_SUCCEEDED
    server: str


@dataclass(frozen=True)
class SandboxOff(LoopFact):
    """These servers run unconfined, as the settings or their entries say."""

    kind = EventType.MCP_SANDBOX_OFF
    servers: list[str]


@dataclass(frozen=True)
class SandboxDegraded(LoopFact):
    """The kernel cannot confine these servers whole: too old a Landlock (`abi`, with the
    rights it leaves `unconfined`), or no user namespaces (`namespaces` False): no sealed
    tree nor PID namespace (what they deny is `unconfined`), and for the servers with host
    lists no network (`unconfined` empty)."""

    kind = EventType.MCP_SANDBOX_DEGRADED
    servers: list[str]
    unconfined: list[str]
    abi: int | None = None
    namespaces: bool | None = None


@dataclass(frozen=True)
class GameSandboxDegraded(LoopFact):
    kind = EventType.GAME_SANDBOX_DEGRADED
    abi: int
    unconfined: list[str]


@dataclass(frozen=True)
class HostRefused(LoopFact):
    """A confined server asked for a host its list does not name (said once per host)."""

    kind = EventType.MCP_SANDBOX_HOST_REFUSED
    server: str
    host: str
    port: int


@dataclass(frozen=True)
class EmulatorRestarted(LoopFact):
    """The game's process died; a new one took over where the game was."""

    kind = EventType.GAME_EMULATOR_RESTARTED
    command: str
    cause: str
    restarts: int


@dataclass(frozen=True)
class ForkServerLost(LoopFact):
    """The MCP fork server is gone: servers are spawned from here on."""

    kind = EventType.MCP_FORK_SERVER_LOST


@dataclass(frozen=True)
class ServerFileSkipped(LoopFact):
    """A file an MCP server keeps in its own folder (the memory server's notes) could not be
    read as one: its contents are skipped, the episode goes on (said once per reason)."""

    kind = EventType.MCP_SERVER_FILE_SKIPPED
    path: str
    reason: str


@dataclass(frozen=True)
class RepliesUnreadable(LoopFact):
    """The model's last `replies` replies in a row could not be read (each played as the
    fallback command): the episode stopped after `turn` (its `max_unreadable_replies`)."""

    kind = EventType.REPLIES_UNREADABLE
    turn: int
    replies: int

    def line(self, fallback: str) -> str:
        return (
            f"The model's last {self.replies} replies could not be read, each played as "
            f"{fallback!r}: the episode stops after turn {self.turn}. The agent reads a JSON "
            'object, {"thinking": "...", "action": "open mailbox"}, or one short line that is '
            "the command (docs/agent.md); max_unreadable_replies in [tool.zorkgpt] sets how "
            "many in a row end an episode."
        )


NOTICE_FACTS: dict[EventType, type[LoopFact]] = {
    fact.kind: fact
    for fact in (
        ConnectRetried,
        ServerDisabled,
        ConnectRecovered,
        SandboxOff,
        SandboxDegraded,
        GameSandboxDegraded,
        HostRefused,
        EmulatorRestarted,
        ForkServerLost,
        ServerFileSkipped,
        RepliesUnreadable,
    )
}
