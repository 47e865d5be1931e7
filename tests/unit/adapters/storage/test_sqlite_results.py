"""What only the SQLite results store does: WAL, an actionable error for a missing file, and
older files migrated. What every ResultStore does: tests/contract/result_store_contract.py."""

from __future__ import annotations

import sqlite3

import pytest

from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.sweep.records import EpisodeRecord


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


def test_a_results_file_from_before_games_loads_its_rows_as_zork_i_and_stores_games_after(
    tmp_path,
):
    """A file written before issue 65 (no game, no max_score) gets both columns: its rows
    read as Zork I's (the only game then), scored over 350; a new row keeps its game."""
    path = tmp_path / "old.sqlite"
    SqliteResultStore(path)
    with sqlite3.connect(path) as db:  # the schema as it was: without the two columns
        db.executescript(
            """
            ALTER TABLE episodes DROP COLUMN game;
            ALTER TABLE episodes DROP COLUMN max_score;
            INSERT INTO episodes (sweep, key, cell, model, mcp, seed, "index", status, score,
                mcp_disabled) VALUES ('s', 'k', 'c', 'm', 'on', 1, 0, 'done', 35, 0);
            """
        )
    store = SqliteResultStore(path)
    [old] = store.episodes()
    assert (old.game, old.max_score, old.game_key, old.normalized_score) == ("", None, "zork1", 0.1)
    store.record(EpisodeRecord("s", "k3", "c game=zork3", "m", "on", 2, 1, "done", score=7,
                               game="zork3", max_score=7))  # fmt: skip
    games = {r.key: (r.game, r.max_score, r.normalized_score) for r in store.episodes()}
    assert games == {"k": ("", None, 0.1), "k3": ("zork3", 7, 1.0)}


def test_an_unknown_games_row_keeps_the_maximum_it_was_played_with(tmp_path):
    store = SqliteResultStore(tmp_path / "r.sqlite")
    store.record(EpisodeRecord("s", "k", "c", "m", "off", 1, 0, "done", score=30, game="advent",
                               max_score=350))  # fmt: skip
    store.record(EpisodeRecord("s", "k2", "c", "m", "off", 1, 1, "done", score=3, game="mine"))
    found = {r.key: r for r in store.episodes()}
    assert found["k"].profile.max_score == 350 and found["k"].normalized_score == 30 / 350
    assert found["k2"].normalized_score is None  # no maximum known: no normalised score
