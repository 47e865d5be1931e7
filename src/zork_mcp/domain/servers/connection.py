"""The MCP connection state machine of one episode (requirements 6.1, 6.7-6.10), one per
configured server.

A failed connect on turn 1 ends the episode with MCPServerStartupError, no retry. On later
turns each failed connect is retried exactly once in the same turn; a failed retry disables
that server for the rest of the episode, and a disabled server is never connected again.
The other servers go on: each has its own machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from zork_mcp.domain.errors import MCPError


class ConnectionState(Enum):
    FIRST_CONNECT = "first_connect"  # nothing has connected yet: turn 1
    HEALTHY = "healthy"  # has connected; the next failure earns a retry
    RETRYING = "retrying"  # one connect failed this turn; one retry is allowed
    DISABLED = "disabled"  # the retry failed: no tools for the rest of the episode
    STARTUP_FAILED = "startup_failed"  # turn 1 failed: the episode ends


class ConnectResult(Enum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class Directive(Enum):
    USE_TOOLS = "use_tools"
    RETRY = "retry"
    RAISE_STARTUP_ERROR = "raise_startup_error"
    CONTINUE_WITHOUT_TOOLS = "continue_without_tools"


CONNECTABLE = frozenset(
    {ConnectionState.FIRST_CONNECT, ConnectionState.HEALTHY, ConnectionState.RETRYING}
)

_TRANSITIONS: dict[tuple[ConnectionState, ConnectResult], tuple[ConnectionState, Directive]] = {
    (ConnectionState.FIRST_CONNECT, ConnectResult.SUCCEEDED): (
        ConnectionState.HEALTHY,
        Directive.USE_TOOLS,
    ),
    (ConnectionState.FIRST_CONNECT, ConnectResult.FAILED): (
        ConnectionState.STARTUP_FAILED,
        Directive.RAISE_STARTUP_ERROR,
    ),
    (ConnectionState.HEALTHY, ConnectResult.SUCCEEDED): (
        ConnectionState.HEALTHY,
        Directive.USE_TOOLS,
    ),
    (ConnectionState.HEALTHY, ConnectResult.FAILED): (ConnectionState.RETRYING, Directive.RETRY),
    (ConnectionState.RETRYING, ConnectResult.SUCCEEDED): (
        ConnectionState.HEALTHY,
        Directive.USE_TOOLS,
    ),
    (ConnectionState.RETRYING, ConnectResult.FAILED): (
        ConnectionState.DISABLED,
        Directive.CONTINUE_WITHOUT_TOOLS,
    ),
}


def transition(state: ConnectionState, result: ConnectResult) -> tuple[ConnectionState, Directive]:
    """The one transition function: where a connect result leads, and what to do now."""
    try:
        return _TRANSITIONS[(state, result)]
    except KeyError:
        raise MCPError(
            f"no connect attempt is allowed in state {state.value}: MCP is off for this episode"
        ) from None


class ConnectionTracker:
    """Holds one episode's connection state; the only place that state changes."""

    def __init__(self, state: ConnectionState = ConnectionState.FIRST_CONNECT) -> None:
        self.state = state

    @property
    def may_connect(self) -> bool:
        return self.state in CONNECTABLE

    @property
    def is_disabled(self) -> bool:
        return self.state is ConnectionState.DISABLED

    def record(self, result: ConnectResult) -> Directive:
        self.state, directive = transition(self.state, result)
        return directive


class ServerConnections:
    """The episode's connection state machine of each server: of each configured one from
    the start when built `of` their names, else made on first use."""

    def __init__(self, trackers: dict[str, ConnectionTracker] | None = None) -> None:
        self._trackers = dict(trackers or {})

    @classmethod
    def of(cls, servers: Iterable[str]) -> ServerConnections:
        return cls({server: ConnectionTracker() for server in servers})

    def __getitem__(self, server: str) -> ConnectionTracker:
        return self._trackers.setdefault(server, ConnectionTracker())

    def connectable(self, servers: Iterable[str]) -> list[str]:
        """The servers, in order, that may still be connected this episode."""
        return [server for server in servers if self[server].may_connect]

    @property
    def is_disabled(self) -> bool:
        """Every server is disabled: the episode goes on without tools."""
        trackers = self._trackers.values()
        return bool(trackers) and all(tracker.is_disabled for tracker in trackers)

    @property
    def never_connected(self) -> tuple[str, ...]:
        """The servers, in order, that have not connected yet this episode (turn 1 opens
        their first session: a first start, such as an `npx` download, is waited for)."""
        first = ConnectionState.FIRST_CONNECT
        return tuple(name for name, tracker in self._trackers.items() if tracker.state is first)

    def states(self) -> dict[str, ConnectionState]:
        return {server: tracker.state for server, tracker in self._trackers.items()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ServerConnections):
            return NotImplemented
        return self.states() == other.states()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by its states
