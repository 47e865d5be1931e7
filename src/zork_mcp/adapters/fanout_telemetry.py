"""Several telemetries as one: every event and span goes to each of them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from zork_mcp.domain.events import Event, SpanKind
from zork_mcp.domain.messages import Usage
from zork_mcp.ports.telemetry import Span, Telemetry


class _FanoutSpan:
    def __init__(self, spans: Sequence[Span]) -> None:
        self._spans = spans

    def update(
        self,
        *,
        output: Any = None,
        metadata: Mapping[str, Any] | None = None,
        usage: Usage | None = None,
    ) -> None:
        for span in self._spans:
            span.update(output=output, metadata=metadata, usage=usage)


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
        kind: SpanKind = SpanKind.SPAN,
        input: Any = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Iterator[_FanoutSpan]:
        with ExitStack() as stack:
            spans = [
                stack.enter_context(t.span(name, kind=kind, input=input, metadata=metadata))
                for t in self.telemetries
            ]
            yield _FanoutSpan(spans)
