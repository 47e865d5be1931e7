"""Telemetry to a standard-library logger: events as log records, spans as debug lines."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from zork_mcp.adapters.telemetry.recorded_span import RecordedSpan, timed_span
from zork_mcp.domain.facts.events import Event, Level
from zork_mcp.domain.facts.span_facts import SpanFacts

LEVELS = {
    Level.DEBUG: logging.DEBUG,
    Level.INFO: logging.INFO,
    Level.WARNING: logging.WARNING,
    Level.ERROR: logging.ERROR,
}


class LoggingTelemetry:
    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger

    def emit(self, event: Event) -> None:
        self.logger.log(
            LEVELS[event.level],
            event.message,
            extra={"event_type": str(event.type), "fields": dict(event.fields)},
        )

    @contextmanager
    def span(
        self,
        name: str,
        *,
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> Iterator[RecordedSpan]:
        with timed_span(name, facts, time.perf_counter, self._log_span) as span:
            yield span

    def _log_span(self, span: RecordedSpan, seconds: float) -> None:
        self.logger.debug("%s %s took %.1f ms", span.kind, span.name, 1000 * seconds)
