"""The fork server's lifecycle: started once, restarted after a loss at most MAX_RESTARTS
times, then left dead so that every server is spawned; closed is final.

Pure, beside its one user rather than in the domain (it is the stdio transport's own
machinery): `ForkServer` reports what it saw and does what the transition tells it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

MAX_RESTARTS = 3  # a fork server that keeps dying is left dead: everything is spawned


class ForkServerState(Enum):
    NOT_STARTED = "not_started"  # never launched (or its first launch failed): spawn
    STARTING = "starting"  # launched, still importing: a start waits for it or spawns
    READY = "ready"  # said it is ready: starts are forked
    LOST = "lost"  # exited or stopped answering: the next start restarts it
    LEFT_DEAD = "left_dead"  # lost once more than the budget allows: spawn from now on
    CLOSED = "closed"  # closed by its owner: final


class ForkServerEvent(Enum):
    START = "start"  # start(): launch it unless it runs; restart a lost one
    START_ONCE = "start_once"  # start_once(): launch it unless it was ever launched
    LAUNCH_FAILED = "launch_failed"  # the launch it was told to do raised
    CAME_UP = "came_up"  # it said it has finished importing
    GONE = "gone"  # it exited, or stopped answering
    CLOSE = "close"


class ForkServerAction(Enum):
    NOTHING = "nothing"
    LAUNCH = "launch"  # start a fork server process; nothing runs now
    END = "end"  # close its control socket and reap whatever process is left


RUNNING = frozenset({ForkServerState.STARTING, ForkServerState.READY})
# Where a start asks the fork server: when lost, it is asked so that the loss is seen.
SERVING = RUNNING | {ForkServerState.LOST}


@dataclass(frozen=True)
class Lifecycle:
    state: ForkServerState = ForkServerState.NOT_STARTED
    restarts: int = 0  # launches after a loss

    @property
    def serves(self) -> bool:
        """Whether a start should ask the fork server rather than spawn at once."""
        return self.state in SERVING


_TRANSITIONS: dict[
    tuple[ForkServerState, ForkServerEvent], tuple[ForkServerState, ForkServerAction]
] = {
    (ForkServerState.NOT_STARTED, ForkServerEvent.START): (
        ForkServerState.STARTING,
        ForkServerAction.LAUNCH,
    ),
    (ForkServerState.NOT_STARTED, ForkServerEvent.START_ONCE): (
        ForkServerState.STARTING,
        ForkServerAction.LAUNCH,
    ),
    # A restart; start_once leaves a lost fork server lost (restarting it is Forking's call).
    (ForkServerState.LOST, ForkServerEvent.START): (
        ForkServerState.STARTING,
        ForkServerAction.LAUNCH,
    ),
    (ForkServerState.STARTING, ForkServerEvent.LAUNCH_FAILED): (
        ForkServerState.LOST,
        ForkServerAction.NOTHING,
    ),
    (ForkServerState.STARTING, ForkServerEvent.CAME_UP): (
        ForkServerState.READY,
        ForkServerAction.NOTHING,
    ),
    (ForkServerState.STARTING, ForkServerEvent.GONE): (
        ForkServerState.LOST,
        ForkServerAction.END,
    ),
    (ForkServerState.READY, ForkServerEvent.GONE): (ForkServerState.LOST, ForkServerAction.END),
    **{
        (state, ForkServerEvent.CLOSE): (ForkServerState.CLOSED, ForkServerAction.END)
        for state in ForkServerState
        if state is not ForkServerState.CLOSED
    },
}


def transition(lifecycle: Lifecycle, event: ForkServerEvent) -> tuple[Lifecycle, ForkServerAction]:
    """The one transition function: where an event leads, and what to do now.

    An event that does not apply changes nothing: a start of a running or closed fork
    server, anything but close once it is left dead, anything at all once it is closed.
    """
    unchanged = (lifecycle.state, ForkServerAction.NOTHING)
    state, action = _TRANSITIONS.get((lifecycle.state, event), unchanged)
    restarted = lifecycle.state is ForkServerState.LOST and action is ForkServerAction.LAUNCH
    restarts = lifecycle.restarts + restarted
    if state is ForkServerState.LOST and restarts == 0 and event is ForkServerEvent.LAUNCH_FAILED:
        state = ForkServerState.NOT_STARTED  # nothing ever ran, so start_once may try again
    elif state is ForkServerState.LOST and restarts == MAX_RESTARTS:
        state = ForkServerState.LEFT_DEAD
    return Lifecycle(state, restarts), action
