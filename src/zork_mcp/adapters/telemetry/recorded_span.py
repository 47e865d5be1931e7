"""The span record the in-process Telemetry adapters hand to the code inside a span."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from zork_mcp.domain.facts.events import SpanKind
from zork_mcp.domain.facts.span_facts import SpanFacts, kind_of, metadata_of
from zork_mcp.domain.llm.messages import Usage


@dataclass
class RecordedSpan:
    """A span as the logs keep it: its facts, and the same as metadata (field name to
    value, opening facts first)."""

    name: str
    kind: SpanKind
    input: Any = None
    facts: list[SpanFacts] = field(default_factory=list)
    output: Any = None
    usage: Usage | None = None
    parent: RecordedSpan | None = field(default=None, repr=False)
    error: str | None = None
    closed: bool = False

    def update(
        self,
        *,
        output: Any = None,
        facts: SpanFacts | None = None,
        usage: Usage | None = None,
    ) -> None:
        if output is not None:
            self.output = output
        if facts is not None:
            self.facts.append(facts)
        if usage is not None:
            self.usage = usage

    @property
    def metadata(self) -> dict[str, Any]:
        return {key: value for facts in self.facts for key, value in metadata_of(facts).items()}

    @classmethod
    def opened(
        cls,
        name: str,
        input: Any = None,
        facts: SpanFacts | None = None,
        parent: RecordedSpan | None = None,
    ) -> RecordedSpan:
        opening = [facts] if facts is not None else []
        return cls(name, kind_of(facts), input, opening, parent=parent)


@contextmanager
def timed_span(
    name: str,
    facts: SpanFacts | None,
    clock: Callable[[], float],
    finish: Callable[[RecordedSpan, float], None],
) -> Iterator[RecordedSpan]:
    """A span opened with `facts`, closed when the block ends (however it ends), then given
    to `finish` with the seconds it took by `clock`: how the file and logger adapters keep
    one."""
    span = RecordedSpan.opened(name, facts=facts)
    started = clock()
    try:
        yield span
    finally:
        span.closed = True
        finish(span, clock() - started)
