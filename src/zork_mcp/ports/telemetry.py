"""The Telemetry port: structured events and nested spans, the one place logs leave from."""

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from zork_mcp.domain.events import Event, SpanKind
from zork_mcp.domain.messages import Usage


class Span(Protocol):
    def update(
        self,
        *,
        output: Any = None,
        metadata: Mapping[str, Any] | None = None,
        usage: Usage | None = None,
    ) -> None: ...


class Telemetry(Protocol):
    def emit(self, event: Event) -> None: ...

    def span(
        self,
        name: str,
        *,
        kind: SpanKind = SpanKind.SPAN,
        input: Any = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> AbstractContextManager[Span]: ...
