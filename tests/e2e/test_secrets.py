"""A sentinel API key must not appear in anything a run leaves behind.

The run is the real app (`main()`): the OpenAI adapter against a local provider peer that
checks the key and echoes it in its error messages, our reasoning MCP server, Jericho,
the JSONL and human logs, and Langfuse exporting its spans to a local OTLP receiver. Then
every log file, the captured terminal output and every exported span body is searched.
"""

from __future__ import annotations

import json
import threading
import uuid
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support import otlp_receiver as otlp
from tests.support.llm_peers import HttpFault, peer_for
from tests.support.walkthrough import TOOL, WALKTHROUGH, project, thought
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow


@contextmanager
def otlp_receiver():
    """A local stand-in for Langfuse's OTLP endpoint: keeps every request body."""
    bodies: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers.get("content-length") or 0)))
            self.send_response(200)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *_) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()


def test_no_key_reaches_logs_events_spans_or_the_terminal(tmp_path, zork_game, capfd, monkeypatch):
    sentinel = f"sk-sentinel-{uuid.uuid4().hex}"
    langfuse_secret = f"sk-lf-sentinel-{uuid.uuid4().hex}"
    otlp_header = f"otlp-sentinel-{uuid.uuid4().hex}"
    replies = [
        HttpFault(500, f"upstream rejected key {sentinel}"),
        action_reply(WALKTHROUGH[0], thinking="first"),
        tool_calls_reply((TOOL, thought(1))),
        action_reply(WALKTHROUGH[1]),
        HttpFault(401, f"Incorrect API key provided: {sentinel}"),
    ]
    peer = peer_for("openai", replies, [TOOL], api_key=sentinel)
    with (
        otlp_receiver() as (langfuse_url, exported),
        otlp.otlp_receiver() as collector,
        peer.serve() as url,
    ):
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"authorization=Bearer {otlp_header}")
        monkeypatch.setenv("OPENAI_API_KEY", sentinel)
        monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", f"pk-lf-{uuid.uuid4().hex}")
        monkeypatch.setenv("LANGFUSE_SECRET_KEY", langfuse_secret)
        monkeypatch.setenv("LANGFUSE_BASE_URL", langfuse_url)
        code = main(
            [
                "--provider", "openai", "--base-url", f"{url}/v1",
                "--game", str(zork_game), "--max-turns", "5", "--plain",
                "--config", str(project(tmp_path, uuid.uuid4().hex)),
                "--log-dir", str(tmp_path / "logs"), "--episode-id", "secrets",
            ]
        )  # fmt: skip
    output = capfd.readouterr()
    assert code == 2, "the 401 ends the run with the documented error"
    assert "HTTP 401" in output.err and "Incorrect API key provided" in output.err
    assert peer.rejections == [] and len(peer.requests) == 5, "the key did reach the provider"
    files = sorted(p for p in (tmp_path / "logs").rglob("*") if p.is_file())
    assert {p.name for p in files} >= {"events.jsonl", "episode.log", "mcp_servers.stderr.log"}
    assert exported, "Langfuse exported spans to the local receiver"
    events = [json.loads(line) for line in (tmp_path / "logs/secrets/events.jsonl").open()]
    assert any(e["event_type"] == "mcp_tool_result" for e in events)
    assert collector.starting("chat "), "OTLP exported the LLM calls"
    exported += collector.bodies
    for secret in (sentinel, langfuse_secret, otlp_header):
        for path in files:
            assert secret.encode() not in path.read_bytes(), f"{secret[:12]}... in {path.name}"
        assert secret not in output.out + output.err
        assert not any(secret.encode() in body for body in exported), "in an exported span"
