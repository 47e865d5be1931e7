"""A local OTLP/HTTP trace receiver: what an OpenTelemetry collector takes on port 4318.

It accepts `POST .../v1/traces` with a protobuf ExportTraceServiceRequest (gzip or not),
answers with an ExportTraceServiceResponse, and keeps the raw bodies and decoded spans
(https://opentelemetry.io/docs/specs/otlp/#otlphttp).
"""

from __future__ import annotations

import gzip
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.support import global_tracing

STATUS_ERROR = 2


@dataclass
class ExportedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    resource: dict[str, Any]
    status_code: int = 0
    status_message: str = ""
    events: list[str] = field(default_factory=list)

    def get(self, key: str) -> Any:
        return self.attributes.get(key)


@dataclass
class Receiver:
    url: str
    bodies: list[bytes] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    spans: list[ExportedSpan] = field(default_factory=list)

    def named(self, name: str) -> list[ExportedSpan]:
        return [span for span in self.spans if span.name == name]

    def starting(self, prefix: str) -> list[ExportedSpan]:
        return [span for span in self.spans if span.name.startswith(prefix)]

    def parent_of(self, span: ExportedSpan) -> ExportedSpan | None:
        return next((s for s in self.spans if s.span_id == span.parent_span_id), None)


def value_of(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value_of(kv.value) for kv in value.kvlist_value.values}
    return None if kind is None else getattr(value, kind)


def decode(body: bytes) -> list[ExportedSpan]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = {a.key: value_of(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            spans += [
                ExportedSpan(
                    span.name,
                    span.trace_id.hex(),
                    span.span_id.hex(),
                    span.parent_span_id.hex(),
                    {a.key: value_of(a.value) for a in span.attributes},
                    resource,
                    span.status.code,
                    span.status.message,
                    [event.name for event in span.events],
                )
                for span in scope_spans.spans
            ]
    return spans


@contextmanager
def otlp_receiver() -> Iterator[Receiver]:
    receiver = Receiver("")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            with lock:
                receiver.bodies.append(body)
                receiver.paths.append(self.path)
                receiver.spans += decode(body)
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Exported:
    langfuse: Receiver
    otlp: Receiver
    secrets: tuple[str, ...]


@contextmanager
def receivers(monkeypatch: Any, *, langfuse: bool = True, otlp: bool = True) -> Iterator[Exported]:
    """Langfuse and a plain OTLP backend, each at its own receiver, set up in the environment."""
    secret = f"sk-lf-sentinel-{uuid.uuid4().hex}"
    header = f"otlp-sentinel-{uuid.uuid4().hex}"
    with otlp_receiver() as lf, otlp_receiver() as ot:
        if langfuse:
            monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", f"pk-lf-{uuid.uuid4().hex}")
            monkeypatch.setenv("LANGFUSE_SECRET_KEY", secret)
            monkeypatch.setenv("LANGFUSE_BASE_URL", lf.url)
        if otlp:
            monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", ot.url)
            monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"authorization=Bearer {header}")
        before = trace.get_tracer_provider()
        try:
            yield Exported(lf, ot, (secret, header))
        finally:  # while the receivers still listen: nothing is left to send once they close
            if global_tracing.taken_since(before):
                global_tracing.give_back()
