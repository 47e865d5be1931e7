"""Telemetry as OpenTelemetry spans with the GenAI semantic conventions, for any OTLP backend.

Spans are named and described as the conventions ask (`invoke_agent`, `chat <model>`,
`execute_tool <tool>`; `gen_ai.*` attributes), so Jaeger, Tempo, Phoenix or Datadog show
the same structure Langfuse does. The adapter keeps its own current span and never makes
its spans current in the global OpenTelemetry context: Langfuse (which is OpenTelemetry
too) and this exporter can run together without adopting each other's spans.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Span as OtelSpan
from opentelemetry.trace import StatusCode

from zork_mcp.adapters.telemetry import trace_semantics as ts
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.facts.events import Event, SpanKind
from zork_mcp.domain.facts.span_facts import SpanFacts, ToolAnswered, kind_of, metadata_of
from zork_mcp.domain.llm.messages import Usage
from zork_mcp.domain.tools.tool_result import jsonable

SERVICE_NAME = "zork-mcp"
PROTOCOL_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
SCALARS = (str, bool, int, float)
CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class _Span:
    def __init__(self, span: OtelSpan, content: tuple[str, str] | None) -> None:
        self._span, self._content = span, content

    def update(
        self,
        *,
        output: Any = None,
        facts: SpanFacts | None = None,
        usage: Usage | None = None,
    ) -> None:
        if self._content and output is not None:
            self._span.set_attribute(self._content[1], _json(output))
        self._span.set_attributes(
            {**_scalars(metadata_of(facts)), **ts.genai_result(facts, output)}
        )
        if usage is not None:
            self._span.set_attributes(ts.genai_usage(usage))
        status = ts.tool_status(facts, output)
        if isinstance(facts, ToolAnswered) and status is not None:
            self._span.set_attribute("error.type", facts.outcome)
            self._span.set_attribute("zork_mcp.level", str(status.level))
            self._span.set_status(StatusCode.ERROR, status.message)


class OtelTelemetry:
    def __init__(
        self,
        provider: TracerProvider,
        identity: ts.RunIdentity | None = None,
        capture_content: bool = False,
    ) -> None:
        self.provider, self.identity, self.capture_content = provider, identity, capture_content
        self._tracer = provider.get_tracer("zork_mcp")
        self._current: ContextVar[OtelSpan | None] = ContextVar("otel_span", default=None)

    def emit(self, event: Event) -> None:
        """Episode start and end as spans of the session; other events on the current span."""
        attributes = _scalars(event.fields)
        if event.type in ts.EPISODE_EVENTS and self.identity is not None:
            session_id = self.identity.session_id
            session = {"session.id": session_id, "gen_ai.conversation.id": session_id}
            span = self._tracer.start_span(
                str(event.type),
                context=Context(),
                attributes={**attributes, **(session if session_id else {})},
            )
            span.end()
            return
        current = self._current.get()
        if current is not None:
            current.add_event(str(event.type), {"message": event.message, **attributes})

    @contextmanager
    def span(
        self,
        name: str,
        *,
        input: Any = None,
        facts: SpanFacts | None = None,
    ) -> Iterator[_Span]:
        otel_name, attributes = ts.genai_start(facts, self.identity)
        parent = self._current.get()
        generation = kind_of(facts) is SpanKind.GENERATION
        span = self._tracer.start_span(
            otel_name,
            context=trace.set_span_in_context(parent) if parent else Context(),
            kind=trace.SpanKind.CLIENT if generation else trace.SpanKind.INTERNAL,
            attributes={**attributes, **_scalars(metadata_of(facts))},
        )
        content = ts.content_keys(facts) if self.capture_content else None
        if content and input is not None:
            span.set_attribute(content[0], _json(ts.shown_input(input)))
        token = self._current.set(span)
        try:
            yield _Span(span, content)
        except Exception as error:
            span.set_attribute("error.type", type(error).__name__)
            span.set_status(StatusCode.ERROR, f"{type(error).__name__}: {error}")
            raise
        finally:
            self._current.reset(token)
            span.end()

    def close(self) -> None:
        """Export the spans still batched, then stop the exporter."""
        self.provider.shutdown()


def otlp_telemetry(
    identity: ts.RunIdentity | None = None,
    exporter: SpanExporter | None = None,
    environ: Mapping[str, str] | None = None,
) -> OtelTelemetry:
    """Spans batched to the OTLP/HTTP endpoint the OTEL_EXPORTER_OTLP_* variables name."""
    env = os.environ if environ is None else environ
    _check_protocol(env)
    provider = TracerProvider(resource=_resource())
    provider.add_span_processor(BatchSpanProcessor(exporter or OTLPSpanExporter()))
    capture = env.get(CAPTURE_CONTENT, "").strip().lower() == "true"
    return OtelTelemetry(provider, identity, capture_content=capture)


def _resource() -> Resource:
    detected = Resource.create()
    if str(detected.attributes.get("service.name", "")).startswith("unknown_service"):
        return detected.merge(Resource({"service.name": SERVICE_NAME}))
    return detected


def _check_protocol(environ: Mapping[str, str]) -> None:
    protocol = next((environ[n] for n in PROTOCOL_VARIABLES if environ.get(n)), "http/protobuf")
    if protocol.strip() != "http/protobuf":
        raise ConfigurationError(
            f"OTLP protocol {protocol!r} is not supported: zork-mcp exports OTLP over HTTP "
            "with protobuf. Set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and point "
            "OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (usually 4318)."
        )


def _json(value: Any) -> str:
    return json.dumps(jsonable(value), ensure_ascii=False)


def _scalars(values: Mapping[str, Any]) -> dict[str, Any]:
    """What a flat attribute map can hold, under the `zork_mcp.` namespace."""
    return {f"zork_mcp.{key}": value for key, value in values.items() if isinstance(value, SCALARS)}
