"""Several telemetries as one: every event and span goes to each of them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from zork_mcp.domain.facts.events import Event
from zork_mcp.domain.facts.span_facts import SpanFacts
from zork_mcp.domain.llm.messages import Usage
from zork_mcp.ports.telemetry import Span, Telemetry


class _FanoutSpan:
    def __init__(self, spans: Sequence[Span]) -> None:
        self._spans = spans

    def update(
        self,
        *,
        output: Any = None,
        facts: SpanFacts | None = None,
        usage: Usage | None = None,
    ) -> None:
        for span in self._spans:
            span.update(output=output, facts=facts, usage=usage)


class FanoutTelemetry:
    def __init__(self, *telemetries: Telemetry) -> None:
        self.telemetries = telemetries

    def emit(self, event: Event) -> None:
        for telemetry in self.telemetries:
            telemetry.emit(event)

    @contextmanager
    def span(
        self,
        name: str,
        *,
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> Iterator[_FanoutSpan]:
        with ExitStack() as stack:
            spans = [
                stack.enter_context(t.span(name, input=input, facts=facts))
                for t in self.telemetries
            ]
            yield _FanoutSpan(spans)
