"""MCP-Ghost calls export like episodes: one trace per call, its tool chain as spans (issue 18).

The real ghost with a real MCP server process and the real OpenAI adapter; the real Langfuse
and OpenTelemetry SDKs export OTLP/HTTP protobuf to local receivers.
"""

from __future__ import annotations

import json

import pytest

from tests.support.fault_server import FAULT_TOOLS
from tests.support.ghost_calls import ghost, marker
from tests.support.llm_peers import peer_for
from tests.support.otlp_receiver import STATUS_ERROR, receivers
from zork_mcp.adapters.llm.fake import text_reply, tool_calls_reply

pytestmark = pytest.mark.slow


async def test_one_ghost_call_is_one_trace_in_each_backend(monkeypatch):
    peer = peer_for(
        "openai",
        [
            tool_calls_reply(("faults.echo", {"text": "one"})),
            tool_calls_reply(("faults.fail", {})),
            text_reply("done"),
        ],
        FAULT_TOOLS,
    )
    with receivers(monkeypatch) as exported:
        result = await ghost(peer, marker(), enable_backtracking=False)
    assert result.final_result == "done"

    otlp = exported.otlp
    assert len({s.trace_id for s in otlp.spans}) == 1
    (root,) = otlp.named("invoke_agent mcp-ghost")
    assert root.parent_span_id == "" and root.get("gen_ai.provider.name") == "openai"
    tools = {s.name: s for s in otlp.starting("execute_tool ")}
    assert set(tools) == {"execute_tool faults.echo", "execute_tool faults.fail"}
    assert tools["execute_tool faults.fail"].status_code == STATUS_ERROR
    chats = otlp.starting("chat ")
    assert len(chats) == 3 and all(otlp.parent_of(s) is root for s in [*chats, *tools.values()])
    assert all(c.get("gen_ai.usage.input_tokens") == 10 for c in chats)

    langfuse = exported.langfuse
    assert len({s.trace_id for s in langfuse.spans}) == 1
    assert {s.get("langfuse.trace.name") for s in langfuse.spans} == {"mcp-ghost"}
    assert "provider:openai" in langfuse.named("mcp-ghost")[0].get("langfuse.trace.tags")
    (failed,) = langfuse.named("mcp-tool-faults.fail")
    assert failed.get("langfuse.observation.level") == "ERROR"
    assert json.loads(failed.get("langfuse.observation.metadata.server_name")) == "faults"
    for secret in (*exported.secrets, peer.api_key):
        assert not any(secret.encode() in body for body in exported.langfuse.bodies + otlp.bodies)
