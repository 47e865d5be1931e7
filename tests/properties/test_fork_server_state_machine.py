"""Random starts, failed launches, "ready" answers, losses and closes of one fork server
(issue 37), through the one transition function of `fork_lifecycle`.

A model of what the adapter's process does checks, after every step: closed is final; a
launch happens only when no fork server process runs; it is ready (forks are handed out)
only once the process running has said so; start_once launches only what never ran; a lost
fork server is restarted at most MAX_RESTARTS times, then left dead and every server spawned.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from zork_mcp.adapters.mcp.stdio.fork_lifecycle import (
    MAX_RESTARTS,
    RUNNING,
    ForkServerAction,
    ForkServerEvent,
    ForkServerState,
    Lifecycle,
    transition,
)


class ForkServerLifecycle(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.lifecycle = Lifecycle()
        self.running = False  # a fork server process exists: launched and not ended
        self.said_ready = False  # the running one answered "ready"
        self.ever_ran = False  # a launch ever succeeded
        self.restarts = 0  # launches tried after one had succeeded
        self.left_dead = False
        self.closed = False

    def _record(self, event: ForkServerEvent) -> ForkServerAction:
        before = self.lifecycle
        self.lifecycle, action = transition(before, event)
        if before.state is ForkServerState.CLOSED:
            assert (self.lifecycle, action) == (before, ForkServerAction.NOTHING), "closed is final"
        if action is ForkServerAction.LAUNCH:
            assert not self.running, "a second fork server while one runs"
        if action is ForkServerAction.END:
            self.running = self.said_ready = False
        return action

    def _launch(self, expected: bool, fails: bool, event: ForkServerEvent) -> None:
        action = self._record(event)
        assert (action is ForkServerAction.LAUNCH) == expected, (event, self.lifecycle)
        if not expected:
            return
        self.restarts += self.ever_ran
        if not fails:
            self.running = self.ever_ran = True
            return
        assert self._record(ForkServerEvent.LAUNCH_FAILED) is ForkServerAction.NOTHING
        self.left_dead = self.ever_ran and self.restarts == MAX_RESTARTS

    @rule(fails=st.booleans())
    def start(self, fails: bool) -> None:
        expected = not (self.closed or self.left_dead or self.running)
        self._launch(expected, fails, ForkServerEvent.START)

    @rule(fails=st.booleans())
    def start_once(self, fails: bool) -> None:
        self._launch(not (self.closed or self.ever_ran), fails, ForkServerEvent.START_ONCE)

    @rule()
    def came_up(self) -> None:
        """The adapter reads "ready" only from a process it launched; any other is ignored."""
        assert self._record(ForkServerEvent.CAME_UP) is ForkServerAction.NOTHING
        self.said_ready = self.said_ready or self.running

    @rule()
    def gone(self) -> None:
        was_running = self.running
        action = self._record(ForkServerEvent.GONE)
        assert action is (ForkServerAction.END if was_running else ForkServerAction.NOTHING)
        self.left_dead = self.left_dead or (was_running and self.restarts == MAX_RESTARTS)

    @rule()
    def close(self) -> None:
        action = self._record(ForkServerEvent.CLOSE)
        assert action is (ForkServerAction.NOTHING if self.closed else ForkServerAction.END)
        self.closed = True

    def _expected_state(self) -> ForkServerState:
        if self.closed:
            return ForkServerState.CLOSED
        if self.left_dead:
            return ForkServerState.LEFT_DEAD
        if self.running:
            return ForkServerState.READY if self.said_ready else ForkServerState.STARTING
        return ForkServerState.LOST if self.ever_ran else ForkServerState.NOT_STARTED

    @invariant()
    def the_state_is_what_happened(self) -> None:
        assert self.lifecycle.state is self._expected_state()
        assert (self.lifecycle.state in RUNNING) == self.running

    @invariant()
    def forks_are_handed_out_only_when_ready(self) -> None:
        ready = self.lifecycle.state is ForkServerState.READY
        assert ready == (self.running and self.said_ready)

    @invariant()
    def restarts_never_exceed_the_budget(self) -> None:
        assert self.lifecycle.restarts == self.restarts <= MAX_RESTARTS

    @invariant()
    def a_start_asks_the_fork_server_only_while_it_may_serve(self) -> None:
        assert self.lifecycle.serves == (self.ever_ran and not self.left_dead and not self.closed)


ForkServerLifecycle.TestCase.settings = settings(
    max_examples=300, stateful_step_count=30, deadline=None
)
TestForkServerLifecycle = ForkServerLifecycle.TestCase


def test_left_dead_after_the_budget_of_restarts():
    """The walk the machine must allow: MAX_RESTARTS losses each restarted, then one more."""
    lifecycle, action = transition(Lifecycle(), ForkServerEvent.START_ONCE)
    for _ in range(MAX_RESTARTS):
        lifecycle, action = transition(lifecycle, ForkServerEvent.GONE)
        assert (lifecycle.state, action) == (ForkServerState.LOST, ForkServerAction.END)
        lifecycle, action = transition(lifecycle, ForkServerEvent.START)
        assert action is ForkServerAction.LAUNCH
    lifecycle, _ = transition(lifecycle, ForkServerEvent.GONE)
    assert lifecycle == Lifecycle(ForkServerState.LEFT_DEAD, MAX_RESTARTS)
    assert transition(lifecycle, ForkServerEvent.START) == (lifecycle, ForkServerAction.NOTHING)
