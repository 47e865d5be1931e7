"""OpenTelemetry's global tracer provider, taken by a test and given back.

A Langfuse client made without a tracer provider of its own (as the app makes it) installs
one as OpenTelemetry's global (langfuse/_client/resource_manager.py), and every span made
after it, the MCP SDK's in any later test of the session, went to its exporter: at exit it
sent them to a receiver its test had long closed, and the log ended with `Transient error
... /api/public/otel/v1/traces ... Connection refused` after the summary (issue 55)."""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.util._once import Once


def taken_since(before: trace.TracerProvider) -> bool:
    return trace.get_tracer_provider() is not before


def give_back() -> None:
    """End every Langfuse client and the global provider (what they hold is sent, or fails
    in the test that made it), and leave the global unset, as a fresh process has it."""
    from langfuse._client.resource_manager import LangfuseResourceManager

    LangfuseResourceManager.reset()
    shutdown = getattr(trace.get_tracer_provider(), "shutdown", None)
    if shutdown is not None:
        shutdown()
    # As opentelemetry-test-utils' reset_trace_globals: the API lets a process set it once.
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = None
