"""The agent's `main()` with its first MCP server reached over Streamable HTTP (issue 16):
a long-lived reasoning server on 127.0.0.1, a fresh MCP session per turn, a header token
from the environment that no log or event ever holds."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.support.http_servers import http_server
from tests.support.llm_peers import peer_for
from tests.support.projects import write_project
from tests.support.walkthrough import TOOL, WALKTHROUGH, thought
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow
SECRET = "hdr-0c7e55a1b9f24d6e"


def project(tmp_path: Path, url: str, protocol: str | None = None) -> Path:
    servers = {
        "reasoning": {
            "type": "http",
            "url": url,
            "headers": {"Authorization": "Bearer ${ZORK_E2E_TOKEN}"},
            **({"protocol": protocol} if protocol else {}),
        }
    }
    return write_project(tmp_path, servers, enabled=True, tool_call_timeout_seconds=20)


@pytest.mark.parametrize(
    ("pin", "era", "histories"),
    [
        (None, "modern", {1}),  # stateless: each thought stands alone
        ("2025-11-25", "handshake", {1, 2}),  # a fresh MCP session a turn, its history empty
    ],
    ids=["newest-era", "handshake-pinned"],
)
def test_an_http_server_serves_every_turn_and_no_log_holds_the_token(
    tmp_path, zork_game, monkeypatch, pin, era, histories
):
    monkeypatch.setenv("ZORK_E2E_TOKEN", SECRET)
    replies = []
    for index, command in enumerate(WALKTHROUGH[:8]):
        if index % 4 == 0:
            replies.append(tool_calls_reply((TOOL, thought(1)), (TOOL, thought(2))))
        replies.append(action_reply(command))
    peer = peer_for("openai", replies, [TOOL], api_key=None)
    argv = ["-m", "zork_mcp.servers.reasoning", "--transport", "http", "--port", "{port}"]
    with http_server(argv) as remote, peer.serve() as url:
        code = main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "walkthrough",
             "--game", str(zork_game), "--max-turns", "8", "--plain",
             "--config", str(project(tmp_path, remote.url, pin)),
             "--log-dir", str(tmp_path), "--episode-id", "e2e"]
        )  # fmt: skip
    events_text = (tmp_path / "e2e" / "events.jsonl").read_text()
    events = [json.loads(line) for line in events_text.splitlines()]
    kinds = Counter(event["event_type"] for event in events)
    assert code == 0 and peer.rejections == []
    assert kinds["mcp_tool_call"] == 4 and kinds["mcp_tool_result"] == 4
    lengths = [
        json.loads(m["content"])["content"]["thoughtHistoryLength"]
        for request in peer.requests
        for m in request["messages"]
        if m["role"] == "tool"
    ]
    assert set(lengths) == histories
    (spoken,) = [event for event in events if event["event_type"] == "mcp_server_protocol"]
    assert (spoken["server"], spoken["era"]) == ("reasoning", era)
    for path in (tmp_path / "e2e").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
