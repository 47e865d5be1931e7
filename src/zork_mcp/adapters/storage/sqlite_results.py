"""Sweep results in SQLite (WAL): one row per finished episode and one per turn it played.

Each finished episode is written in one transaction, so a killed sweep leaves only whole
episodes behind; an episode without a row was interrupted and is played again. A file from
an earlier version gains the newer columns when opened: its turns' new facts stay NULL
(read as their defaults), its episodes' best score is taken from their turns, and their
other play metrics stay NULL (unknown, left out of the statistics).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.sweep.records import COLUMNS, EpisodeRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
    sweep TEXT NOT NULL, key TEXT NOT NULL, cell TEXT NOT NULL, model TEXT NOT NULL,
    mcp TEXT NOT NULL, seed INTEGER NOT NULL, "index" INTEGER NOT NULL, status TEXT NOT NULL,
    score INTEGER, moves INTEGER, turns INTEGER, end_reason TEXT, error TEXT,
    prompt_tokens INTEGER, completion_tokens INTEGER, cached_tokens INTEGER, cost_usd REAL,
    tool_calls INTEGER, tool_errors INTEGER, mcp_disabled INTEGER,
    rate_limited INTEGER DEFAULT 0, llm_retries INTEGER DEFAULT 0, seconds REAL,
    log_dir TEXT, finished_at TEXT DEFAULT CURRENT_TIMESTAMP,
    best_score INTEGER, deaths INTEGER, invalid_commands INTEGER, rooms_visited INTEGER,
    max_turns INTEGER, extended_from INTEGER,
    history TEXT, setup TEXT, game TEXT DEFAULT '', max_score INTEGER,
    repeated_commands INTEGER,
    cache_write_tokens INTEGER DEFAULT 0, cost_input_usd REAL, cost_cached_input_usd REAL,
    cost_cache_write_usd REAL, cost_output_usd REAL, unpriced TEXT, unreadable_replies INTEGER,
    PRIMARY KEY (sweep, key)
);
CREATE TABLE IF NOT EXISTS turns (
    sweep TEXT NOT NULL, key TEXT NOT NULL, turn INTEGER NOT NULL, score INTEGER NOT NULL,
    moves INTEGER NOT NULL, tool_calls INTEGER NOT NULL,
    room TEXT, valid INTEGER, died INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER,
    llm_seconds REAL, tool_errors INTEGER, tools TEXT, location INTEGER, repeated INTEGER,
    cost_usd REAL, unreadable INTEGER,
    PRIMARY KEY (sweep, key, turn)
);
"""
ADDED_COLUMNS = {  # columns added since the first schema: a file from before gets them
    "episodes": {
        "rate_limited": "INTEGER DEFAULT 0",
        "llm_retries": "INTEGER DEFAULT 0",
        "best_score": "INTEGER",
        "deaths": "INTEGER",
        "invalid_commands": "INTEGER",
        "rooms_visited": "INTEGER",
        "max_turns": "INTEGER",
        "extended_from": "INTEGER",
        "history": "TEXT",  # NULL: the run's own history mode (every row stored before)
        "setup": "TEXT",
        "game": "TEXT DEFAULT ''",  # '': Zork I's (every row stored before games had keys)
        "max_score": "INTEGER",  # NULL: the known game's maximum
        "repeated_commands": "INTEGER",
        "cache_write_tokens": "INTEGER DEFAULT 0",
        "cost_input_usd": "REAL",
        "cost_cached_input_usd": "REAL",
        "cost_cache_write_usd": "REAL",
        "cost_output_usd": "REAL",
        "unpriced": "TEXT",
        "unreadable_replies": "INTEGER",  # NULL: stored before replies were judged
    },
    "turns": {
        "room": "TEXT",
        "valid": "INTEGER",
        "died": "INTEGER",
        "prompt_tokens": "INTEGER",
        "completion_tokens": "INTEGER",
        "llm_seconds": "REAL",
        "tool_errors": "INTEGER",
        "tools": "TEXT",  # JSON: {tool: [calls, errors]}
        "location": "INTEGER",
        "repeated": "INTEGER",
        "cost_usd": "REAL",
        "unreadable": "INTEGER",
    },
}
TURN_COLUMNS = [
    "turn",
    "score",
    "moves",
    "tool_calls",
    "room",
    "valid",
    "died",
    "prompt_tokens",
    "completion_tokens",
    "llm_seconds",
    "tool_errors",
    "tools",
    "location",
    "repeated",
    "cost_usd",
    "unreadable",
]
BEST_FROM_TURNS = """
UPDATE episodes SET best_score = max(coalesce(score, 0), coalesce(
    (SELECT max(t.score) FROM turns t WHERE t.sweep = episodes.sweep AND t.key = episodes.key),
    0))
"""


class SqliteResultStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            for table, added in ADDED_COLUMNS.items():
                present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
                for name, kind in added.items():
                    if name not in present:
                        db.execute(f'ALTER TABLE {table} ADD COLUMN "{name}" {kind}')
                if table == "episodes" and "best_score" not in present:
                    db.execute(BEST_FROM_TURNS)  # once, as the column arrives

    @classmethod
    def existing(cls, path: Path) -> SqliteResultStore:
        if not path.is_file():
            raise ConfigurationError(
                f"No results at {path}: run `zork-mcp eval --results {path} ...` first."
            )
        return cls(path)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            db.execute("PRAGMA synchronous=NORMAL")  # in WAL: durable against a killed process
            yield db

    def record(self, episode: EpisodeRecord) -> None:
        """The episode and its trajectory in one transaction; a replayed one replaces the old."""
        names = ", ".join(f'"{c}"' for c in COLUMNS)
        marks = ", ".join("?" for _ in COLUMNS)
        values = [getattr(episode, c) for c in COLUMNS]
        with self._connect() as db:
            db.execute(
                "DELETE FROM turns WHERE sweep = ? AND key = ?", (episode.sweep, episode.key)
            )
            db.execute(f"INSERT OR REPLACE INTO episodes ({names}) VALUES ({marks})", values)
            names = ", ".join(["sweep", "key", *TURN_COLUMNS])
            marks = ", ".join("?" for _ in range(2 + len(TURN_COLUMNS)))
            db.executemany(
                f"INSERT INTO turns ({names}) VALUES ({marks})",
                [(episode.sweep, episode.key, *_turn_row(turn)) for turn in episode.trajectory],
            )

    def sweeps(self) -> list[str]:
        with self._connect() as db:
            return [s for (s,) in db.execute("SELECT DISTINCT sweep FROM episodes ORDER BY sweep")]

    def episodes(self, sweep: str | None = None) -> list[EpisodeRecord]:
        names = ", ".join(f'"{c}"' for c in COLUMNS)
        where, args = ("WHERE sweep = ?", (sweep,)) if sweep else ("", ())
        with self._connect() as db:
            rows = db.execute(
                f'SELECT {names} FROM episodes {where} ORDER BY sweep, cell, "index"', args
            ).fetchall()
            points = self._trajectories(db, sweep)
        records = []
        for row in rows:
            values = dict(zip(COLUMNS, row, strict=True))
            values["mcp_disabled"] = bool(values["mcp_disabled"])
            values["game"] = values["game"] or ""  # a row from before: Zork I's
            trajectory = tuple(points.get((values["sweep"], values["key"]), []))
            records.append(EpisodeRecord(**values, trajectory=trajectory))
        return records

    @staticmethod
    def _trajectories(
        db: sqlite3.Connection, sweep: str | None
    ) -> dict[tuple[str, str], list[TurnFacts]]:
        where, args = ("WHERE sweep = ?", (sweep,)) if sweep else ("", ())
        points: dict[tuple[str, str], list[TurnFacts]] = {}
        query = f"SELECT sweep, key, {', '.join(TURN_COLUMNS)} FROM turns {where} ORDER BY turn"
        for s, key, *row in db.execute(query, args):
            points.setdefault((s, key), []).append(_turn_of(row))
        return points


def _turn_row(turn: TurnFacts) -> tuple[object, ...]:
    values = turn.fields()
    values["tools"] = json.dumps(values["tools"])
    return tuple(values[name] for name in TURN_COLUMNS)


def _turn_of(row: list[object]) -> TurnFacts:
    values = dict(zip(TURN_COLUMNS, row, strict=True))
    values["tools"] = json.loads(str(values["tools"])) if values["tools"] else {}
    for flag in ("valid", "died", "repeated", "unreadable"):
        values[flag] = None if values[flag] is None else bool(values[flag])
    return TurnFacts.from_fields(values)
