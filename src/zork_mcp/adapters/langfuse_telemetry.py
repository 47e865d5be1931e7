"""Telemetry spans in Langfuse (SDK v3+ observation API); events stay in the local logs.

A span per tool call (`mcp-tool-{name}`), the turn's `agent-tool-calling-session` span, and
a generation per LLM call with its token usage (requirements 7.4, 7.5).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from langfuse import Langfuse

from zork_mcp.domain.events import Event, SpanKind
from zork_mcp.domain.messages import Usage
from zork_mcp.domain.tool_result import jsonable


class _Observation:
    def __init__(self, observation: Any) -> None:
        self._observation = observation

    def update(
        self,
        *,
        output: Any = None,
        metadata: Mapping[str, Any] | None = None,
        usage: Usage | None = None,
    ) -> None:
        changes: dict[str, Any] = {}
        if output is not None:
            changes["output"] = jsonable(output)
        if metadata:
            changes["metadata"] = jsonable(dict(metadata))
        if usage is not None:
            changes["usage_details"] = {
                "input": usage.prompt_tokens,
                "output": usage.completion_tokens,
                "cache_read_input_tokens": usage.cached_tokens,
            }
        if changes:
            self._observation.update(**changes)


class LangfuseTelemetry:
    def __init__(self, client: Langfuse) -> None:
        self.client = client

    def emit(self, event: Event) -> None:
        """Events are written by the local telemetry; Langfuse gets the spans."""

    @contextmanager
    def span(
        self,
        name: str,
        *,
        kind: SpanKind = SpanKind.SPAN,
        input: Any = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Iterator[_Observation]:
        as_type = "generation" if kind is SpanKind.GENERATION else "span"
        with self.client.start_as_current_observation(
            name=name,
            as_type=as_type,
            input=jsonable(input),
            metadata=jsonable(dict(metadata or {})),
        ) as observation:
            yield _Observation(observation)

    def flush(self) -> None:
        self.client.flush()
