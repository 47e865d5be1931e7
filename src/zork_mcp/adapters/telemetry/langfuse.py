"""Telemetry spans in Langfuse (SDK v3+ observation API); events stay in the local logs.

A span per tool call (`mcp-tool-{name}`), the turn's `agent-tool-calling-session` span, and
a generation per LLM call with its token usage (requirements 7.4, 7.5). With a RunIdentity
every trace joins the episode's session, named for its turn and tagged with provider, model
and MCP set-up; generations carry the model, its parameters, usage and cost; failed tool
calls stand out by level; the episode's start and end are small traces in the same session.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from typing import Any

from langfuse import Langfuse, propagate_attributes

from zork_mcp.adapters.telemetry import trace_semantics as ts
from zork_mcp.domain.facts.events import Event
from zork_mcp.domain.facts.span_facts import (
    LLMAnswered,
    LLMCalled,
    SpanFacts,
    ToolCalled,
    TurnOpened,
    metadata_of,
)
from zork_mcp.domain.llm.messages import Usage
from zork_mcp.domain.tools.tool_result import jsonable


class _Observation:
    def __init__(self, observation: Any) -> None:
        self._observation = observation

    def update(
        self,
        *,
        output: Any = None,
        facts: SpanFacts | None = None,
        usage: Usage | None = None,
    ) -> None:
        changes: dict[str, Any] = {}
        if output is not None:
            changes["output"] = jsonable(output)
        if facts is not None:
            changes["metadata"] = jsonable(metadata_of(facts))
            if isinstance(facts, LLMAnswered) and facts.response_model:
                changes["model"] = facts.response_model
            status = ts.tool_status(facts, output)
            if status is not None:
                changes["level"] = status.level.upper()
                changes["status_message"] = status.message
        if usage is not None:
            changes["usage_details"] = ts.langfuse_usage(usage)
            if (cost := ts.langfuse_cost(usage)) is not None:
                changes["cost_details"] = cost
        if changes:
            self._observation.update(**changes)


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
            self._trace_attributes(name, None),
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
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> Iterator[_Observation]:
        with ExitStack() as stack:
            if self._depth.get() == 0:
                stack.enter_context(self._trace_attributes(name, facts))
            token = self._depth.set(self._depth.get() + 1)
            stack.callback(self._depth.reset, token)
            observation = stack.enter_context(
                self.client.start_as_current_observation(
                    name=name,
                    as_type=self._observation_type(name, facts),
                    input=jsonable(ts.shown_input(input)),
                    metadata=jsonable(metadata_of(facts)),
                    **self._generation_fields(facts),
                )
            )
            try:
                yield _Observation(observation)
            except Exception as error:
                observation.update(level="ERROR", status_message=f"{type(error).__name__}: {error}")
                raise

    def flush(self) -> None:
        self.client.flush()

    def close(self) -> None:
        """Send what is queued; the client itself is the SDK's to keep or end."""
        self.client.flush()

    def _trace_attributes(self, name: str, facts: SpanFacts | None) -> Any:
        if self.identity is None:
            return ExitStack()
        return propagate_attributes(
            session_id=self.identity.session_id,
            trace_name=self.identity.trace_name(name, facts),
            tags=self.identity.tags(),
            metadata=self.identity.metadata(),
        )

    def _observation_type(self, name: str, facts: SpanFacts | None) -> str:
        """A generation, a tool call, an agent (a turn, or the run an identity names)."""
        if isinstance(facts, LLMCalled):
            return "generation"
        if isinstance(facts, ToolCalled):
            return "tool"
        is_run = self.identity is not None and name == self.identity.name
        return "agent" if isinstance(facts, TurnOpened) or is_run else "span"

    def _generation_fields(self, facts: SpanFacts | None) -> dict[str, Any]:
        if not isinstance(facts, LLMCalled):
            return {}
        model = facts.model or (self.identity.model if self.identity else None)
        return {"model": model, "model_parameters": ts.model_parameters(facts)}
