"""The Telemetry port as what the episode is doing now: each span's opening, its update and
its close, and each completed turn, told to an ActivityWatch. It keeps nothing else: the
other telemetries beside it (a fan-out) log what happened."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from zork_mcp.domain.facts.activity import (
    ActivityWatch,
    SpanClosed,
    SpanOpened,
    SpanUpdated,
    TurnEnded,
)
from zork_mcp.domain.facts.events import Event, EventType
from zork_mcp.domain.facts.span_facts import SpanFacts
from zork_mcp.domain.llm.messages import Usage


class _WatchedSpan:
    def __init__(self, watch: ActivityWatch) -> None:
        self._watch = watch

    def update(
        self,
        *,
        output: Any = None,
        facts: SpanFacts | None = None,
        usage: Usage | None = None,
    ) -> None:
        if facts is not None:
            self._watch.change(SpanUpdated(facts))


class ActivityTelemetry:
    def __init__(self, watch: ActivityWatch) -> None:
        self.watch = watch

    def emit(self, event: Event) -> None:
        if event.type is EventType.TURN_COMPLETE:
            self.watch.change(TurnEnded())

    @contextmanager
    def span(
        self,
        name: str,
        *,
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> Iterator[_WatchedSpan]:
        self.watch.change(SpanOpened(facts))
        try:
            yield _WatchedSpan(self.watch)
        finally:
            self.watch.change(SpanClosed(facts))
