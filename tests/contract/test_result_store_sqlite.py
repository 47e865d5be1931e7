import itertools

import pytest

from tests.contract.result_store_contract import ResultStoreContract
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore


class TestSqliteResultStore(ResultStoreContract):
    @pytest.fixture
    def new_store(self, tmp_path):
        files = (tmp_path / f"results-{n}.sqlite" for n in itertools.count())
        return lambda: SqliteResultStore(next(files))


# The schema of the first results files (before rate limits, retries and per-turn facts).
FIRST_SCHEMA = """
CREATE TABLE episodes (
    sweep TEXT NOT NULL, key TEXT NOT NULL, cell TEXT NOT NULL, model TEXT NOT NULL,
    mcp TEXT NOT NULL, seed INTEGER NOT NULL, "index" INTEGER NOT NULL, status TEXT NOT NULL,
    score INTEGER, moves INTEGER, turns INTEGER, end_reason TEXT, error TEXT,
    prompt_tokens INTEGER, completion_tokens INTEGER, cached_tokens INTEGER, cost_usd REAL,
    tool_calls INTEGER, tool_errors INTEGER, mcp_disabled INTEGER, seconds REAL,
    log_dir TEXT, finished_at TEXT DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (sweep, key)
);
CREATE TABLE turns (
    sweep TEXT NOT NULL, key TEXT NOT NULL, turn INTEGER NOT NULL, score INTEGER NOT NULL,
    moves INTEGER NOT NULL, tool_calls INTEGER NOT NULL,
    PRIMARY KEY (sweep, key, turn)
);
INSERT INTO episodes VALUES ('s', 'k', 'c', 'm', 'on', 12, 0, 'done', 30, 20, 3, 'turn_limit',
    NULL, 900, 90, 0, NULL, 2, 0, 0, 4.5, 'logs/k', '2026-11-20 10:00:00');
INSERT INTO turns VALUES
    ('s', 'k', 1, 25, 10, 1), ('s', 'k', 2, 40, 11, 1), ('s', 'k', 3, 30, 12, 0);
"""


def test_an_old_results_file_migrates_keeping_its_rows_and_taking_the_best_score_from_its_turns(
    tmp_path,
):
    import sqlite3

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(FIRST_SCHEMA)
    [episode] = SqliteResultStore(path).episodes("s")
    assert (episode.score, episode.turns, episode.rate_limited, episode.best_score) == (
        30,
        3,
        0,
        40,
    )
    assert (episode.deaths, episode.invalid_commands, episode.rooms_visited) == (None, None, None)
    assert [(t.turn, t.score, t.room, t.valid, t.died, t.tools) for t in episode.trajectory] == [
        (1, 25, "", True, False, ()),
        (2, 40, "", True, False, ()),
        (3, 30, "", True, False, ()),
    ]
    # before history modes, set-ups and repeats: the run's own history, the rest unknown
    assert (episode.history, episode.setup, episode.repeated_commands) == (None, None, None)
    assert {(t.location, t.repeated) for t in episode.trajectory} == {(0, False)}
    again = SqliteResultStore(path)  # opening twice changes nothing
    assert again.episodes("s") == [episode]
