"""The ResultStore contract: whole episodes in, the same episodes out, each exactly once, the
last write winning; run against every adapter of the port (SQLite, and the in-memory fake)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zork_mcp.domain.episode.turn_facts import ToolUse, TurnFacts
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.ports.result_store import ResultStore

tool_uses = st.lists(
    st.builds(ToolUse, st.text(min_size=1, max_size=30), st.integers(1, 9), st.integers(0, 9)),
    max_size=3,
    unique_by=lambda use: use.tool,
).map(tuple)
turn_facts = st.builds(
    TurnFacts,
    turn=st.just(0),
    score=st.integers(-10, 350),
    moves=st.integers(0, 999),
    tool_calls=st.integers(0, 20),
    room=st.text(max_size=30),
    valid=st.booleans(),
    died=st.booleans(),
    prompt_tokens=st.integers(0, 10**6),
    completion_tokens=st.integers(0, 10**5),
    llm_seconds=st.floats(0, 600),
    tool_errors=st.integers(0, 20),
    tools=tool_uses,
    location=st.integers(0, 255),
    repeated=st.booleans(),
    unreadable=st.booleans(),
)
points = st.lists(turn_facts, max_size=8).map(
    lambda ps: tuple(replace(p, turn=i + 1) for i, p in enumerate(ps))
)
metric = st.none() | st.integers(0, 400)
records = st.builds(
    EpisodeRecord,
    sweep=st.sampled_from(["a", "b"]),
    key=st.text("0123456789abcdef", min_size=4, max_size=16),
    cell=st.text(max_size=20),
    model=st.text(max_size=20),
    mcp=st.sampled_from(["on", "off", "configs/x.json"]),
    seed=st.integers(0, 2**31),
    index=st.integers(0, 99),
    status=st.sampled_from(["done", "failed"]),
    score=st.integers(0, 350),
    error=st.none() | st.text(max_size=40),
    cost_usd=st.none() | st.floats(0, 10),
    mcp_disabled=st.booleans(),
    seconds=st.floats(0, 1e4),
    rate_limited=st.integers(0, 50),
    llm_retries=st.integers(0, 50),
    best_score=metric,
    deaths=metric,
    invalid_commands=metric,
    rooms_visited=metric,
    history=st.sampled_from([None, "window", "full", "state"]),
    setup=st.none() | st.text(max_size=40),
    repeated_commands=metric,
    unreadable_replies=metric,
    trajectory=points,
)


# Each adapter's subclass runs the same inherited property: different executors on purpose.
PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors],
)


def by_key(episodes: list[EpisodeRecord]) -> list[EpisodeRecord]:
    return sorted(episodes, key=lambda r: (r.sweep, r.key))


class ResultStoreContract:
    @pytest.fixture
    def new_store(self) -> Callable[[], ResultStore]:
        """A factory: every call gives an empty store."""
        raise NotImplementedError

    @PROPERTY
    @given(batch=st.lists(records, max_size=6))
    def test_what_is_recorded_comes_back_once_per_episode_the_last_write_winning(
        self, new_store, batch
    ):
        store = new_store()
        for record in batch:
            store.record(record)
        latest = {(r.sweep, r.key): r for r in batch}
        assert by_key(store.episodes()) == by_key(list(latest.values()))
        for sweep in ("a", "b"):
            stored = by_key(store.episodes(sweep))
            assert stored == by_key([r for (s, _), r in latest.items() if s == sweep])
        assert store.sweeps() == sorted({s for s, _ in latest})

    @PROPERTY
    @given(batch=st.lists(records, max_size=6))
    def test_episodes_come_in_sweep_cell_and_index_order(self, new_store, batch):
        store = new_store()
        for record in batch:
            store.record(record)
        order = [(r.sweep, r.cell, r.index) for r in store.episodes()]
        assert order == sorted(order)

    def test_an_empty_store_has_no_sweep_and_no_episode(self, new_store):
        store = new_store()
        assert (store.sweeps(), store.episodes(), store.episodes("a")) == ([], [], [])
