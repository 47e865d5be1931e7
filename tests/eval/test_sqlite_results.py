"""The SQLite results store: whole episodes in, the same episodes out, each exactly once."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zork_mcp.adapters.sqlite_results import SqliteResultStore
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.evaluation.records import EpisodeRecord, TurnPoint

points = st.lists(
    st.builds(
        TurnPoint, st.integers(1, 500), st.integers(0, 350), st.integers(0, 999), st.integers(0, 20)
    ),
    max_size=8,
).map(lambda ps: tuple(TurnPoint(i + 1, p.score, p.moves, p.tool_calls) for i, p in enumerate(ps)))
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
    trajectory=points,
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(records, max_size=6))
def test_what_is_recorded_comes_back_once_per_episode_the_last_write_winning(tmp_path, batch):
    path = tmp_path / "r.sqlite"
    path.unlink(missing_ok=True)
    store = SqliteResultStore(path)
    for record in batch:
        store.record(record)
    latest = {(r.sweep, r.key): r for r in batch}
    stored = store.episodes()
    assert sorted(stored, key=lambda r: (r.sweep, r.key)) == sorted(
        latest.values(), key=lambda r: (r.sweep, r.key)
    )
    for sweep in ("a", "b"):
        assert store.finished_keys(sweep) == {k for s, k in latest if s == sweep}


def test_the_store_is_in_wal_mode_and_a_missing_file_is_an_actionable_error(tmp_path):
    SqliteResultStore(tmp_path / "r.sqlite")
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    with pytest.raises(ConfigurationError, match="run `zork-mcp eval --results"):
        SqliteResultStore.existing(tmp_path / "missing.sqlite")


def test_a_results_file_from_before_the_rate_limit_counts_gets_them(tmp_path):
    """A sweep resumed on a file written before issue 27 keeps its rows: the new columns
    are added, reading 0 for the old rows."""
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            """
            CREATE TABLE episodes (
                sweep TEXT NOT NULL, key TEXT NOT NULL, cell TEXT NOT NULL, model TEXT NOT NULL,
                mcp TEXT NOT NULL, seed INTEGER NOT NULL, "index" INTEGER NOT NULL,
                status TEXT NOT NULL, score INTEGER, moves INTEGER, turns INTEGER,
                end_reason TEXT, error TEXT, prompt_tokens INTEGER, completion_tokens INTEGER,
                cached_tokens INTEGER, cost_usd REAL, tool_calls INTEGER, tool_errors INTEGER,
                mcp_disabled INTEGER, seconds REAL, log_dir TEXT,
                finished_at TEXT DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (sweep, key));
            INSERT INTO episodes (sweep, key, cell, model, mcp, seed, "index", status, score,
                mcp_disabled) VALUES ('s', 'k', 'c', 'm', 'on', 1, 0, 'done', 7, 0);
            """
        )
    store = SqliteResultStore(path)
    [old] = store.episodes()
    assert (old.score, old.rate_limited, old.llm_retries) == (7, 0, 0)
    store.record(EpisodeRecord("s", "k2", "c", "m", "on", 2, 1, "done", rate_limited=3,
                               llm_retries=4))  # fmt: skip
    assert {(r.key, r.rate_limited, r.llm_retries) for r in store.episodes()} == {
        ("k", 0, 0),
        ("k2", 3, 4),
    }
