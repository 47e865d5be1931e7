"""The Telemetry port: structured events and nested spans, the one place logs leave from.

A span carries typed facts (zork_mcp.domain.facts.span_facts): what it is when it opens, what came
of it when updated; its kind follows from the type of its opening facts.
"""

from contextlib import AbstractContextManager
from typing import Any, Protocol

from zork_mcp.domain.facts.events import Event
from zork_mcp.domain.facts.span_facts import SpanFacts
from zork_mcp.domain.llm.messages import Usage


class Span(Protocol):
    def update(
        self,
        *,
        output: Any = None,
        facts: SpanFacts | None = None,
        usage: Usage | None = None,
    ) -> None: ...


class Telemetry(Protocol):
    def emit(self, event: Event) -> None: ...

    def span(
        self,
        name: str,
        *,
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> AbstractContextManager[Span]: ...
