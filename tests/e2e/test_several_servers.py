"""The agent's `main()` with several MCP servers (issue 26): the README's config (the
reasoning server, the text-adventure server and a remote one over HTTP) offered and called
together, and faults that stay with the server they happen on: a start failure, a death
mid-call and a timeout on one server while another works."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.support.http_servers import http_server
from tests.support.paths import FAULT_SERVER
from tests.support.projects import play_episode as run
from tests.support.walkthrough import thought
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply

pytestmark = pytest.mark.slow
ADVENTURE_TOOLS = ["play_action", "memory", "get_map", "inventory"]
FAULT_TOOLS = ["echo", "fail", "slow", "crash", "big", "start_failing_http"]


def offered(request: dict) -> set[str]:
    """The servers whose tools an LLM request offered (OpenAI wire names: server_tool)."""
    return {tool["function"]["name"].split("_", 1)[0] for tool in request.get("tools", [])}


def fault_server(mode: str = "serve", **env: str) -> dict:
    """Confined as every server is: the folders of the files its env names are its own."""
    own = sorted({str(Path(value).parent) for value in env.values() if "/" in value})
    return {"command": sys.executable, "args": [str(FAULT_SERVER), mode], "env": env,
            "sandbox": {"write": own}}  # fmt: skip


def names(server: str, tools: list[str]) -> list[str]:
    return [f"{server}.{tool}" for tool in tools]


def test_the_readme_config_offers_and_calls_every_server(tmp_path, zork_game, monkeypatch):
    monkeypatch.setenv("GAME", str(zork_game))
    argv = ["-m", "zork_mcp.servers.reasoning", "--transport", "http", "--port", "{port}"]
    with http_server(argv) as remote:
        servers = {
            "reasoning": {"command": "python", "args": ["-m", "zork_mcp.servers.reasoning"]},
            "adventure": {
                "command": "python",
                "args": ["-m", "zork_mcp.servers.text_adventure"],
                "env": {"GAME": str(zork_game)},
            },
            "remote": {"type": "http", "url": remote.url},
        }
        calls = tool_calls_reply(
            ("reasoning.sequentialthinking", thought(1)),
            ("adventure.memory", {}),
            ("remote.sequentialthinking", thought(1)),
        )
        tools = [
            "reasoning.sequentialthinking",
            *names("adventure", ADVENTURE_TOOLS),
            "remote.sequentialthinking",
        ]
        replies = [calls, action_reply("open mailbox"), action_reply("north")]
        code, events, peer = run(tmp_path, servers, replies, tools, 2, tool_call_timeout_seconds=20)
    assert code == 0 and peer.rejections == []
    results = [e for e in events if e["event_type"] == "mcp_tool_result"]
    assert sorted(e["server_name"] for e in results) == ["adventure", "reasoning", "remote"]
    assert all(not e.get("is_error") for e in results)
    assert offered(peer.requests[0]) == {"reasoning", "adventure", "remote"}


def test_a_server_that_stops_starting_is_retried_then_disabled_alone(tmp_path):
    starts = tmp_path / "starts"
    servers = {
        "good": fault_server(),
        "flaky": fault_server("flaky", FAULT_STARTS=str(starts), FAULT_FAILING_STARTS="2,3"),
    }
    echo = ("good.echo", {"text": "hi"})
    replies = [
        tool_calls_reply(echo, ("flaky.echo", {"text": "hi"})), action_reply("north"),
        tool_calls_reply(echo), action_reply("south"),
        tool_calls_reply(echo), action_reply("north"),
    ]  # fmt: skip
    tools = names("good", FAULT_TOOLS) + names("flaky", FAULT_TOOLS)
    code, events, peer = run(tmp_path, servers, replies, tools, 3, server_start="spawn")
    assert code == 0 and peer.rejections == []
    retry = [e for e in events if e["event_type"] == "mcp_connect_retry"]
    disabled = [e for e in events if e["event_type"] == "mcp_disabled_fallback"]
    assert [(e["server"], e["turn"]) for e in retry] == [("flaky", 2)]
    assert [(e["server"], e["turn"]) for e in disabled] == [("flaky", 2)]
    results = Counter(
        (e["turn"], e["server_name"]) for e in events if e["event_type"] == "mcp_tool_result"
    )
    assert results == {(1, "good"): 1, (1, "flaky"): 1, (2, "good"): 1, (3, "good"): 1}
    first_of_each_turn = [peer.requests[i] for i in (0, 2, 4)]
    assert [offered(r) for r in first_of_each_turn] == [{"good", "flaky"}, {"good"}, {"good"}]
    assert starts.read_text().split() == ["start"] * 3, "served, failed, failed, never again"


def test_a_server_that_dies_mid_call_comes_back_and_the_other_never_left(tmp_path):
    servers = {"good": fault_server(), "mortal": fault_server()}
    replies = [
        tool_calls_reply(("good.echo", {"text": "a"}), ("mortal.crash", {})),
        action_reply("north"),
        tool_calls_reply(("mortal.echo", {"text": "b"}), ("good.echo", {"text": "c"})),
        action_reply("south"),
    ]
    tools = names("good", FAULT_TOOLS) + names("mortal", FAULT_TOOLS)
    code, events, peer = run(tmp_path, servers, replies, tools, 2)
    assert code == 0 and peer.rejections == []
    broken = [e for e in events if e["event_type"] == "mcp_session_broken"]
    assert [e["turn"] for e in broken] == [1] and "mortal" in broken[0]["message"]
    later = [
        (e["server_name"], e["is_error"])
        for e in events
        if e["event_type"] == "mcp_tool_result" and e["turn"] == 2
    ]
    assert sorted(later) == [("good", False), ("mortal", False)]
    assert not [e for e in events if e["event_type"] == "mcp_disabled_fallback"]


def test_a_timeout_on_one_server_leaves_the_other_to_answer(tmp_path):
    servers = {"sleepy": fault_server(), "good": fault_server()}
    replies = [
        tool_calls_reply(("sleepy.slow", {"seconds": 30})),
        tool_calls_reply(("good.echo", {"text": "still here"})),
        action_reply("north"),
    ]
    tools = names("sleepy", FAULT_TOOLS) + names("good", FAULT_TOOLS)
    code, events, peer = run(tmp_path, servers, replies, tools, 1, tool_call_timeout_seconds=1)
    assert code == 0 and peer.rejections == []
    timeouts = [e for e in events if e["event_type"] == "mcp_tool_timeout"]
    results = [e for e in events if e["event_type"] == "mcp_tool_result"]
    assert [e["tool_name"] for e in timeouts] == ["sleepy.slow"]
    assert [(e["server_name"], e["is_error"]) for e in results] == [("good", False)]
    answered = [m for m in peer.requests[2]["messages"] if m["role"] == "tool"]
    assert "echo: still here" in answered[-1]["content"]
