"""The tracing backends the environment asks for: Langfuse, plain OTLP, both or none.

Each SDK is imported only when its variables are set, so tracing that is off costs nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Protocol

from zork_mcp.adapters.telemetry.trace_semantics import RunIdentity
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.ports.telemetry import Telemetry

OTLP_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


class TracingBackend(Telemetry, Protocol):
    def close(self) -> None:
        """Send what is left; the backend is not used again."""


def langfuse_configured(environ: Mapping[str, str]) -> bool:
    return bool(environ.get("LANGFUSE_PUBLIC_KEY") and environ.get("LANGFUSE_SECRET_KEY"))


def otlp_configured(environ: Mapping[str, str]) -> bool:
    """An OTLP endpoint is named the standard way and the SDK is not switched off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return any(environ.get(name, "").strip() for name in OTLP_ENDPOINTS)


@contextmanager
def tracing_backends(
    identity: RunIdentity, environ: Mapping[str, str] | None = None
) -> Iterator[list[TracingBackend]]:
    """The configured backends; everything they hold is sent before this exits."""
    env = os.environ if environ is None else environ
    backends: list[TracingBackend] = []
    try:
        if langfuse_configured(env):
            backends.append(_langfuse(identity))
        if otlp_configured(env):
            backends.append(_otlp(identity, env))
        yield backends
    finally:
        for backend in backends:
            backend.close()


def _langfuse(identity: RunIdentity) -> TracingBackend:
    try:
        from langfuse import Langfuse

        from zork_mcp.adapters.telemetry.langfuse import LangfuseTelemetry
    except ImportError as e:
        raise ConfigurationError(
            "LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY are set but the Langfuse SDK is not "
            "installed: `pip install 'zork-mcp[langfuse]'`, or unset those variables."
        ) from e
    return LangfuseTelemetry(Langfuse(), identity)


def _otlp(identity: RunIdentity, environ: Mapping[str, str]) -> TracingBackend:
    try:
        from zork_mcp.adapters.telemetry.otel import otlp_telemetry
    except ImportError as e:
        raise ConfigurationError(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry SDK is not installed: "
            "`pip install 'zork-mcp[otel]'`, or unset that variable."
        ) from e
    return otlp_telemetry(identity, environ=environ)
