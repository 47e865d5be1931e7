"""What a worker has over an episode it plays: a stop reaches the agent whenever it comes,
and an episode that failed because it was stopped is played again rather than kept."""

from __future__ import annotations

import threading
import time

import pytest

from zork_mcp.domain.sweep.controls import EpisodeControls, EpisodeInterrupted, RunningEpisodes
from zork_mcp.domain.sweep.records import EpisodeRecord


class Agent:
    def __init__(self) -> None:
        self.interrupts = 0

    def interrupt(self) -> None:
        self.interrupts += 1


def record(status: str) -> EpisodeRecord:
    return EpisodeRecord("s", "key-7", "c", "m", "on", 1, 0, status)


def test_a_stop_before_the_agent_is_attached_reaches_it_when_it_is():
    controls, agent = EpisodeControls(), Agent()
    controls.interrupt()
    controls.attach(agent)
    assert agent.interrupts == 1 and controls.interrupted


def test_an_episode_never_stopped_keeps_its_record_even_when_it_failed():
    controls = EpisodeControls()
    controls.attach(Agent())
    assert controls.settle(record("failed")) == record("failed")
    assert controls.settle(record("done")) == record("done")


def test_an_episode_that_failed_after_a_stop_is_interrupted_naming_its_key():
    controls = EpisodeControls()
    controls.interrupt()
    with pytest.raises(EpisodeInterrupted) as caught:
        controls.settle(record("failed"))
    assert str(caught.value) == "key-7"
    assert controls.settle(record("done")) == record("done")


def test_an_episode_on_its_own_starts_its_own_servers_and_a_workers_episodes_share():
    assert EpisodeControls().shared is False
    assert RunningEpisodes().add("k").shared is True


def test_a_worker_waits_until_its_last_episode_is_done_or_its_timeout_passes():
    running = RunningEpisodes()
    running.wait(None)  # none running: no wait
    first, second = running.add("a"), running.add("b")
    running.interrupt()
    assert first.interrupted and second.interrupted, "a stop reaches the queued episodes too"
    started = time.monotonic()
    running.wait(0.05)  # still running: back after the timeout
    assert time.monotonic() - started >= 0.05
    running.done("a")
    threading.Timer(0.05, running.done, ("b",)).start()
    running.wait(10)
    assert time.monotonic() - started < 5, "the wait ended when the last one was done"
