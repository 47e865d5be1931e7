"""Telemetry to files: one JSON object per event (events.jsonl) and a human-readable log,
and the one reader of events.jsonl (`show`, the HTML report, a resumed episode).

The human log follows the specification's examples, e.g.
`[INFO] Turn 47 Iteration 1: Agent calling tool thoughtbox.think`, with each turn's game
answer, death, score change and room under its line (`human_log`).
Each line reaches the file in one unbuffered write, so a killed process loses nothing it
logged and never leaves half a line.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from zork_mcp.adapters.storage import own_files
from zork_mcp.adapters.telemetry.human_log import HumanLog
from zork_mcp.adapters.telemetry.recorded_span import RecordedSpan, timed_span
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.facts.events import (
    EPISODE_KEY,
    LEVEL_KEY,
    MESSAGE_KEY,
    Event,
    EventType,
    LoggedEvent,
)
from zork_mcp.domain.facts.span_facts import SpanFacts
from zork_mcp.domain.tools.tool_result import jsonable

EVENTS_FILE = "events.jsonl"
LOG_FILE = "episode.log"
TYPE_KEY = "event_type"  # an event's EventType, or SPAN_TYPE for a span's line
SPAN_TYPE = "span"
# Characters str.splitlines() breaks on that JSON leaves unescaped: escaped, one event per line.
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_LINE_BREAK_TABLE = str.maketrans(_LINE_BREAKS)


def json_line(record: Mapping[str, Any]) -> str:
    """One JSON object on exactly one line, whatever the strings in it hold."""
    return json.dumps(record, ensure_ascii=False).translate(_LINE_BREAK_TABLE) + "\n"


class JsonlTelemetry:
    def __init__(
        self,
        directory: Path,
        episode_id: str,
        *,
        wall_clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.events_path = directory / EVENTS_FILE
        self.log_path = directory / LOG_FILE
        self.episode_id = episode_id
        self._events = _LineFile(self.events_path)
        self._log = _LineFile(self.log_path)
        self._wall, self._monotonic = wall_clock, monotonic
        self._lock = threading.Lock()
        self._human = HumanLog()

    def emit(self, event: Event) -> None:
        record = {
            "timestamp": round(self._wall(), 3),
            TYPE_KEY: str(event.type),
            LEVEL_KEY: str(event.level),
            MESSAGE_KEY: event.message,
            EPISODE_KEY: self.episode_id,
            **jsonable(dict(event.fields)),
        }
        with self._lock:
            self._events.write(json_line(record))
            self._log.write(self._human.text(event))

    @contextmanager
    def span(
        self,
        name: str,
        *,
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> Iterator[RecordedSpan]:
        with timed_span(name, facts, self._monotonic, self._write_span) as span:
            yield span

    def _write_span(self, span: RecordedSpan, seconds: float) -> None:
        usage = span.usage
        record = {
            "timestamp": round(self._wall(), 3),
            TYPE_KEY: SPAN_TYPE,
            "name": span.name,
            "kind": str(span.kind),
            "duration_ms": round(seconds * 1000, 3),
            EPISODE_KEY: self.episode_id,
            "metadata": jsonable(span.metadata),
        }
        if usage is not None:
            record["usage"] = {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "cached_tokens": usage.cached_tokens,
                "cache_write_tokens": usage.cache_write_tokens,
                "cost_usd": usage.cost_usd,  # each call priced; None: `unpriced` says why
                "cost_parts": jsonable(usage.cost_parts),
                "unpriced": usage.unpriced,
            }
        with self._lock:
            self._events.write(json_line(record))

    def flush(self) -> None:
        """Nothing to do: every line is written through when it is emitted."""

    def close(self) -> None:
        with self._lock:
            self._events.close()
            self._log.close()


def read_events(directory: Path) -> list[LoggedEvent]:
    """The events of an episode folder's events.jsonl, in order, the episode's own with their
    typed payloads; refused with where and why if there is none, or a line is not JSON or
    not the payload its type carries."""
    path = directory / EVENTS_FILE
    try:
        data = own_files.read(path)  # never a link: what it points to is not the episode's
    except (FileNotFoundError, NotADirectoryError):
        raise ConfigurationError(
            f"No {EVENTS_FILE} in {directory}: pass an episode's log folder "
            f"(e.g. logs/<episode-id>, or eval/logs/<sweep>-<key> for a sweep's episode)."
        ) from None
    lines = data.decode("utf-8", "replace").splitlines()
    return [_event(line, f"{path}:{number}") for number, line in enumerate(lines, 1)]


def _event(line: str, where: str) -> LoggedEvent:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        raise ConfigurationError(f"{where} is not a JSON event ({e}).") from e
    try:
        return LoggedEvent(_type(record.get(TYPE_KEY)), record)
    except (KeyError, TypeError, ValueError) as e:  # an episode event without its payload
        raise ConfigurationError(
            f"{where} does not hold the {record.get(TYPE_KEY)} event zork-mcp writes "
            f"({type(e).__name__}: {e})."
        ) from e


def _type(name: object) -> EventType | None:
    try:
        return EventType(name)
    except ValueError:
        return None


class _LineFile:
    """An append-only text file written a whole line per system call, without a buffer; it
    and its folder are made at the first line, so a run that never started leaves neither.

    Text from a model may hold what UTF-8 cannot (a lone surrogate): it is written as its
    escape, `\\ud800`, which is also how JSON writes it, so events.jsonl reads it back."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fd = _UNOPENED

    def write(self, line: str) -> None:
        if self._fd == _UNOPENED:  # never through a link another process put there
            self._fd = own_files.open_appending(self._path)
        data = memoryview(line.encode("utf-8", "backslashreplace"))
        while data:
            data = data[os.write(self._fd, data) :]

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = _CLOSED  # a line written after close fails, as on a closed descriptor


_UNOPENED, _CLOSED = -2, -1
