"""The span record the in-process Telemetry adapters hand to the code inside a span."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zork_mcp.domain.events import SpanKind
from zork_mcp.domain.messages import Usage


@dataclass
class RecordedSpan:
    name: str
    kind: SpanKind
    input: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)
    output: Any = None
    usage: Usage | None = None
    parent: RecordedSpan | None = field(default=None, repr=False)
    error: str | None = None
    closed: bool = False

    def update(
        self,
        *,
        output: Any = None,
        metadata: Mapping[str, Any] | None = None,
        usage: Usage | None = None,
    ) -> None:
        if output is not None:
            self.output = output
        if metadata:
            self.metadata.update(metadata)
        if usage is not None:
            self.usage = usage
