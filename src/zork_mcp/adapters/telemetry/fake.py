"""In-memory Telemetry: records events and a tree of spans for tests and dry runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from zork_mcp.adapters.telemetry.recorded_span import RecordedSpan
from zork_mcp.domain.facts.events import Event
from zork_mcp.domain.facts.span_facts import SpanFacts


class FakeTelemetry:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.spans: list[RecordedSpan] = []
        self._current: ContextVar[RecordedSpan | None] = ContextVar("span", default=None)

    def emit(self, event: Event) -> None:
        self.events.append(event)

    @contextmanager
    def span(
        self,
        name: str,
        *,
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> Iterator[RecordedSpan]:
        span = RecordedSpan.opened(name, input, facts, parent=self._current.get())
        self.spans.append(span)
        token = self._current.set(span)
        try:
            yield span
        except BaseException as e:
            span.error = f"{type(e).__name__}: {e}"
            raise
        finally:
            self._current.reset(token)
            span.closed = True

    def of_type(self, event_type: str) -> list[Event]:
        return [event for event in self.events if event.type == event_type]

    def types(self) -> list[str]:
        return [str(event.type) for event in self.events]
