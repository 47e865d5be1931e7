"""Hostile MCP servers through the whole agent and through MCP-Ghost (issue 35): the CLI's
`main()` and `mcp_ghost()` against a strict OpenAI peer that enforces the 128-tool limit,
the name rule and the description length. No request is refused, the good tools are
called, each skipped tool is reported once per episode, and no process is left behind."""

from __future__ import annotations

import asyncio
import json
import uuid

import httpx
import pytest

from tests.support.hostile_server import command
from tests.support.llm_peers import peer_for
from tests.support.processes import processes_with_environment
from tests.support.projects import play_episode
from zork_mcp.adapters.llm.fake import action_reply, text_reply, tool_calls_reply
from zork_mcp.ghost import mcp_ghost

pytestmark = pytest.mark.slow


def hostile(case: str, mark: str, **env: str) -> dict:
    return {"command": "python", "args": command(case)[1:], "env": {"MARK": mark, **env}}


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [event for event in events if event.get("event_type") == kind]


def test_the_agent_keeps_good_tools_offers_at_most_128_and_says_so_once(tmp_path):
    mark = uuid.uuid4().hex
    servers = {
        "bad": hostile("empty_name", mark),
        "many": hostile("many_tools", mark),
        "child": hostile("stubborn_child", mark),
    }
    replies = [
        tool_calls_reply(("bad.good", {"text": "hi"})),
        action_reply("open mailbox"),
        action_reply("north"),
        action_reply("south"),
    ]
    code, events, peer = play_episode(tmp_path, servers, replies, ["bad.good"], 3)
    assert code == 0 and peer.rejections == [] and peer.broken_rules == []
    requests_with_tools = [r for r in peer.requests if r.get("tools")]
    assert len(requests_with_tools) == 4  # two in turn 1, one in each later turn
    assert all(len(r["tools"]) == 128 for r in requests_with_tools)
    (result,) = of_type(events, "mcp_tool_result")
    assert result["server_name"] == "bad" and not result["is_error"]
    (answer,) = [m for m in peer.requests[1]["messages"] if m["role"] == "tool"]
    assert json.loads(answer["content"]) == {"content": "good:hi"}
    (rejected,) = of_type(events, "mcp_tool_rejected")  # three turns, one event
    assert (rejected["server"], rejected["tool"], rejected["reason"]) == (
        "bad",
        "",
        "its name is empty",
    )
    (left_out,) = of_type(events, "mcp_tools_left_out")
    assert len(left_out["tools"]) == 1 + 5001 + 1 - 128  # every server's tools, less 128
    assert "at most 128 tools" in left_out["reason"]
    assert processes_with_environment("MARK", mark) == []


def test_mcp_ghost_gets_the_same_judgment(tmp_path):
    mark = uuid.uuid4().hex
    config = {"mcpServers": {"bad": hostile("schema_string", mark)}}
    peer = peer_for(
        "openai",
        [tool_calls_reply(("bad.good", {"text": "x"})), text_reply("done")],
        ["bad.good"],
        api_key="sk-test",
    )

    async def ask() -> dict:
        async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
            return await mcp_ghost(
                server_config=config,
                system_prompt="Use the tools.",
                provider="openai",
                api_key=peer.api_key,
                user_prompt="Do it.",
                http_client=client,
            )

    result = asyncio.run(ask())
    assert peer.rejections == []
    assert result["success"] and result["final_result"] == "done"
    assert [call["tool_name"] for call in result["tool_chain"]] == ["bad.good"]
    assert [tool["function"]["name"] for tool in peer.requests[0]["tools"]] == ["bad__good"]
    assert processes_with_environment("MARK", mark) == []
