"""Which tracing backends the environment turns on, and that off costs nothing (issue 18).

The variables are the standard ones: Langfuse's keys, and OpenTelemetry's
OTEL_EXPORTER_OTLP_* / OTEL_SDK_DISABLED / OTEL_TRACES_EXPORTER
(https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from tests.support.paths import ROOT
from zork_mcp.adapters.telemetry.langfuse import LangfuseTelemetry
from zork_mcp.adapters.telemetry.otel import OtelTelemetry
from zork_mcp.adapters.telemetry.trace_semantics import RunIdentity
from zork_mcp.builders.providers import resolve_model
from zork_mcp.builders.tracing import tracing_backends
from zork_mcp.domain.errors import ConfigurationError

IDENTITY = RunIdentity(resolve_model("openai", "gpt-4o-mini"), session_id="ep")
LANGFUSE = {"LANGFUSE_PUBLIC_KEY": "pk-lf-x", "LANGFUSE_SECRET_KEY": "sk-lf-x"}
OTLP = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, []),
        ({"LANGFUSE_PUBLIC_KEY": "pk-lf-x"}, []),
        (LANGFUSE, [LangfuseTelemetry]),
        (OTLP, [OtelTelemetry]),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces"}, [OtelTelemetry]),
        ({**OTLP, "OTEL_SDK_DISABLED": "true"}, []),
        ({**OTLP, "OTEL_TRACES_EXPORTER": "none"}, []),
        ({**LANGFUSE, **OTLP}, [LangfuseTelemetry, OtelTelemetry]),
    ],
)
def test_the_environment_chooses_the_backends(monkeypatch, environ, expected):
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANGFUSE_BASE_URL", "http://127.0.0.1:9")
    with tracing_backends(IDENTITY, environ) as backends:
        assert [type(b) for b in backends] == expected


def test_a_grpc_protocol_is_refused_with_the_fix():
    environ = {**OTLP, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    with pytest.raises(ConfigurationError) as raised, tracing_backends(IDENTITY, environ):
        pass
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf" in str(raised.value)
    assert "4318" in str(raised.value)


@pytest.mark.slow
def test_with_tracing_off_no_tracing_sdk_is_even_imported(tmp_path):
    """The OpenTelemetry API alone comes with the mcp package; the SDKs stay unloaded."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from zork_mcp.builders.settings import RunOptions
        from zork_mcp.builders.telemetry import episode_telemetry, telemetry as build
        from zork_mcp.domain.settings import MCPSettings
        options = RunOptions(log_dir=Path({str(tmp_path)!r}))
        with build(episode_telemetry(options, MCPSettings())) as telemetry:
            sdks = ("langfuse", "opentelemetry.sdk", "opentelemetry.exporter")
            loaded = sorted(m for m in sys.modules if m.startswith(sdks))
            print(type(telemetry).__name__, loaded)
        """
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("LANGFUSE_", "OTEL_"))}
    run = subprocess.run(
        [sys.executable, "-c", script], env=environ, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "JsonlTelemetry []"


SESSION = """
from opentelemetry import trace

from tests.support.otlp_receiver import receivers
from zork_mcp.adapters.telemetry.trace_semantics import RunIdentity
from zork_mcp.builders.providers import resolve_model
from zork_mcp.builders.tracing import tracing_backends


def test_a_run_traced_to_langfuse(monkeypatch):
    identity = RunIdentity(resolve_model("local", "m"))
    with receivers(monkeypatch, otlp=False), tracing_backends(identity):
        pass


def test_a_run_traced_to_langfuse_at_a_fixed_address(monkeypatch):
    for name, value in {"LANGFUSE_PUBLIC_KEY": "pk-lf-y", "LANGFUSE_SECRET_KEY": "sk-lf-y",
                        "LANGFUSE_BASE_URL": "http://127.0.0.1:9"}.items():
        monkeypatch.setenv(name, value)
    with tracing_backends(RunIdentity(resolve_model("local", "m"))):
        pass


def test_later_spans_as_the_mcp_sdk_makes_them():
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "think"}
    tracer = trace.get_tracer("mcp-python-sdk")
    with tracer.start_as_current_span("tools/call", attributes=attributes):
        pass
"""


@pytest.mark.slow
def test_a_test_session_ends_with_its_summary_not_with_a_late_export(tmp_path):
    """Issue 55: a Langfuse client a test made took OpenTelemetry's global tracer provider;
    the MCP SDK's spans of later tests went to it, and at exit to a receiver long closed:
    `Transient error ... Connection refused` and `Failed to export spans` after the summary."""
    (tmp_path / "test_session.py").write_text(SESSION)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), "-p", "tests.conftest",
         str(tmp_path / "test_session.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    last = [line for line in run.stdout.splitlines() if line.strip()][-1]
    assert re.fullmatch(r"3 passed in [\d.]+s", last), run.stdout[-500:]
    assert "export" not in run.stderr, run.stderr[-1500:]  # `Failed to export spans`, and more
