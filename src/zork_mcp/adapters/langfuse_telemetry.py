"""Telemetry spans in Langfuse (SDK v3+ observation API); events stay in the local logs.

A span per tool call (`mcp-tool-{name}`), the turn's `agent-tool-calling-session` span, and
a generation per LLM call with its token usage (requirements 7.4, 7.5). With a RunIdentity
every trace joins the episode's session, named for its turn and tagged with provider, model
and MCP set-up; generations carry the model, its parameters, usage and cost; failed tool
calls stand out by level; the episode's start and end are small traces in the same session.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from typing import Any

from langfuse import Langfuse, propagate_attributes

from zork_mcp.adapters import trace_semantics as ts
from zork_mcp.domain.events import (
    LLM_GENERATION,
    SESSION_SPAN,
    Event,
    SpanFact,
    SpanKind,
    is_tool_span,
)
from zork_mcp.domain.messages import Usage
from zork_mcp.domain.tool_result import jsonable


class _Observation:
    def __init__(self, observation: Any, name: str) -> None:
        self._observation, self._name = observation, name

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
            if metadata.get(SpanFact.RESPONSE_MODEL):
                changes["model"] = str(metadata[SpanFact.RESPONSE_MODEL])
            status = ts.tool_status(metadata, output) if self._is_tool else None
            if status is not None:
                changes["level"] = status.level.upper()
                changes["status_message"] = status.message
        if usage is not None:
            changes["usage_details"] = ts.langfuse_usage(usage)
            if (cost := ts.langfuse_cost(usage)) is not None:
                changes["cost_details"] = cost
        if changes:
            self._observation.update(**changes)

    @property
    def _is_tool(self) -> bool:
        return is_tool_span(self._name)


class LangfuseTelemetry:
    def __init__(self, client: Langfuse, identity: ts.RunIdentity | None = None) -> None:
        self.client, self.identity = client, identity
        self._depth: ContextVar[int] = ContextVar("langfuse_depth", default=0)

    def emit(self, event: Event) -> None:
        """The episode's start and end join its session; other events stay in the local logs."""
        if self.identity is None or self.identity.session_id is None:
            return
        if event.type not in ts.EPISODE_EVENTS:
            return
        name = str(event.type).replace("_", "-")
        with (
            self._trace_attributes(name, {}),
            self.client.start_as_current_observation(
                name=name, as_type="span", output=jsonable(dict(event.fields))
            ) as observation,
        ):
            observation.update(metadata={"message": event.message})

    @contextmanager
    def span(
        self,
        name: str,
        *,
        kind: SpanKind = SpanKind.SPAN,
        input: Any = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Iterator[_Observation]:
        facts = dict(metadata or {})
        with ExitStack() as stack:
            if self._depth.get() == 0:
                stack.enter_context(self._trace_attributes(name, facts))
            token = self._depth.set(self._depth.get() + 1)
            stack.callback(self._depth.reset, token)
            observation = stack.enter_context(
                self.client.start_as_current_observation(
                    name=name,
                    as_type=self._observation_type(name, kind),
                    input=jsonable(input),
                    metadata=jsonable(facts),
                    **self._generation_fields(kind, facts),
                )
            )
            try:
                yield _Observation(observation, name)
            except Exception as error:
                observation.update(level="ERROR", status_message=f"{type(error).__name__}: {error}")
                raise

    def flush(self) -> None:
        self.client.flush()

    def close(self) -> None:
        """Send what is queued; the client itself is the SDK's to keep or end."""
        self.client.flush()

    def _trace_attributes(self, name: str, metadata: Mapping[str, Any]) -> Any:
        if self.identity is None:
            return ExitStack()
        return propagate_attributes(
            session_id=self.identity.session_id,
            trace_name=self.identity.trace_name(name, metadata),
            tags=self.identity.tags(),
            metadata=self.identity.metadata(),
        )

    def _observation_type(self, name: str, kind: SpanKind) -> str:
        if kind is SpanKind.GENERATION or name == LLM_GENERATION:
            return "generation"
        if is_tool_span(name):
            return "tool"
        agents = (SESSION_SPAN, self.identity.name if self.identity else SESSION_SPAN)
        return "agent" if name in agents else "span"

    def _generation_fields(self, kind: SpanKind, metadata: Mapping[str, Any]) -> dict[str, Any]:
        if kind is not SpanKind.GENERATION:
            return {}
        model = metadata.get(SpanFact.MODEL) or (self.identity.model if self.identity else None)
        return {"model": model, "model_parameters": ts.model_parameters(metadata)}
