"""A real Langfuse client whose spans go to an in-memory OpenTelemetry exporter."""

from __future__ import annotations

import uuid

from langfuse import Langfuse
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class LangfuseCapture:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.client = Langfuse(
            public_key=f"pk-lf-{uuid.uuid4().hex}",
            secret_key="sk-lf-property",
            base_url="http://127.0.0.1:9",
            span_exporter=self.exporter,
            tracer_provider=TracerProvider(),
        )

    def spans(self) -> list[ReadableSpan]:
        self.client.flush()
        spans = list(self.exporter.get_finished_spans())
        self.exporter.clear()
        return spans
