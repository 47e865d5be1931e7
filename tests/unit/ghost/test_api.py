"""mcp_ghost() end to end: real MCP servers, the real OpenAI adapter, a provider peer."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time

import httpx
import pytest

from tests.support.fault_server import FAULT_TOOLS
from tests.support.ghost_calls import assert_no_server_left, ghost, marker, servers
from tests.support.llm_peers import HttpFault, peer_for
from tests.support.raw_servers import RAW_SERVER
from zork_mcp.adapters.llm.fake import text_reply, tool_calls_reply
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.ghost import NestedEventLoopError, mcp_ghost, mcp_ghost_sync
from zork_mcp.ghost.run import BREAKER_THRESHOLD, MAX_BACKTRACKS

pytestmark = pytest.mark.slow


async def test_a_chain_runs_and_every_server_process_is_gone_after():
    mark = marker()
    peer = peer_for(
        "openai",
        [
            tool_calls_reply(("faults.echo", {"text": "one"})),
            tool_calls_reply(("faults.echo", {"text": "two"})),
            text_reply("done: one, two"),
        ],
        FAULT_TOOLS,
    )
    result = await ghost(peer, mark)
    assert result.success and result.final_result == "done: one, two"
    assert [e.result for e in result.tool_chain] == ["echo: one", "echo: two"]
    usage = result.execution_metadata.token_usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (30, 15, 45)
    assert set(result) == set(result.model_dump()) == {
        "success", "final_result", "summary", "tool_chain",
        "conversation_history", "errors", "execution_metadata",
    }  # fmt: skip
    assert isinstance(result, dict) and result["success"] is True
    assert [entry["tool_name"] for entry in result["tool_chain"]] == ["faults.echo"] * 2
    assert result["execution_metadata"]["token_usage"]["total_tokens"] == 45
    assert json.loads(json.dumps(result)) == result.typed.model_dump()
    assert_no_server_left(mark)


async def test_timeout_bounds_each_tool_call():
    peer = peer_for(
        "openai",
        [tool_calls_reply(("faults.slow", {"seconds": 60})), text_reply("gave up waiting")],
        FAULT_TOOLS,
    )
    result = await ghost(peer, marker(), timeout=0.5)
    (entry,) = result.tool_chain
    assert not entry.success and "timed out after 0.5s" in entry.error
    assert entry.execution_time < 5
    assert result.success and result.errors[0].recovery_action.startswith("backtracked")


async def test_the_circuit_breaker_stops_calling_a_tool_that_keeps_failing():
    calls = 5
    peer = peer_for(
        "openai",
        [
            *[tool_calls_reply(("faults.fail", {})) for _ in range(calls)],
            text_reply("it never works"),
        ],
        FAULT_TOOLS,
    )
    result = await ghost(peer, marker(), enable_backtracking=False)
    errors = [entry.error for entry in result.tool_chain]
    assert all("this tool always fails" in e for e in errors[:BREAKER_THRESHOLD])
    assert all("circuit open" in e for e in errors[BREAKER_THRESHOLD:])
    assert result.errors[BREAKER_THRESHOLD - 1].recovery_action.startswith("circuit opened")
    assert [entry.retry_attempt for entry in result.tool_chain] == [0, 1, 2, 3, 4]
    assert result.execution_metadata.backtrack_count == 0


async def test_backtracking_is_bounded():
    peer = peer_for(
        "openai",
        [
            *[tool_calls_reply(("faults.unknown_tool", {})) for _ in range(MAX_BACKTRACKS + 2)],
            text_reply("stuck"),
        ],
        FAULT_TOOLS,
    )
    result = await ghost(peer, marker())
    assert result.execution_metadata.backtrack_count == MAX_BACKTRACKS
    prompts = [m for m in result.conversation_history if m.role == "user"][1:]
    assert len(prompts) == MAX_BACKTRACKS
    assert all("unknown tool" in p.content for p in prompts)


async def test_max_iterations_ends_gracefully_with_a_final_answer():
    peer = peer_for(
        "openai",
        [
            *[tool_calls_reply(("faults.echo", {"text": str(i)})) for i in range(2)],
            text_reply("ok"),
        ],
        FAULT_TOOLS,
    )
    result = await ghost(peer, marker(), max_iterations=2)
    assert not result.success and result.final_result == "ok"
    assert "tools" not in peer.requests[-1], "the final call offers no tools"


async def test_without_conversation_memory_the_llm_sees_only_the_last_exchange():
    peer = peer_for(
        "openai",
        [*[tool_calls_reply(("faults.echo", {"text": str(i)})) for i in range(3)], text_reply("3")],
        FAULT_TOOLS,
    )
    result = await ghost(peer, marker(), conversation_memory=False)
    assert [len(r["messages"]) for r in peer.requests] == [2, 4, 4, 4]
    assert len(result.conversation_history) == 2 + 3 * 2 + 1, "the result keeps it all"


async def test_a_server_that_does_not_start_is_a_failed_result_not_a_crash():
    mark = marker()
    peer = peer_for("openai", [], FAULT_TOOLS)
    result = await ghost(peer, mark, server_config=servers(mark, command="no-such-mcp-server"))
    assert not result.success and result.execution_metadata.servers_connected == 0
    assert "no-such-mcp-server" in result.errors[0].error and peer.requests == []


async def test_a_provider_failure_is_reported_without_the_key():
    mark = marker()
    peer = peer_for("openai", [HttpFault(400, "bad request")], FAULT_TOOLS)
    result = await ghost(peer, mark)
    assert not result.success and "HTTP 400" in result.errors[0].error
    assert peer.api_key not in result.model_dump_json()
    assert_no_server_left(mark)


async def test_cancelling_a_run_leaves_no_server_process():
    mark = marker()
    peer = peer_for("openai", [tool_calls_reply(("faults.slow", {"seconds": 60}))], FAULT_TOOLS)
    task = asyncio.create_task(ghost(peer, mark))
    for _ in range(200):
        if peer.requests:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_no_server_left(mark)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"provider": "cohere"}, "choose one of openrouter, openai, anthropic, gemini"),
        ({"api_key": " "}, "api_key is empty"),
        ({"server_config": {"servers": {}}}, "mcpServers"),
        ({"server_config": {"mcpServers": {"a.b": {"command": "x"}}}}, "contain no '.'"),
        ({"timeout": 0}, "timeout must be more than 0"),
        ({"max_iterations": 0}, "max_iterations must be at least 1"),
        ({"context_budget_tokens": 0}, "context_budget_tokens must be at least 1"),
    ],
)
async def test_bad_arguments_fail_at_once_and_say_what_to_fix(change, message):
    arguments = {
        "server_config": servers(marker()),
        "system_prompt": "s",
        "provider": "openai",
        "api_key": "k",
        "user_prompt": "u",
        **change,
    }
    with pytest.raises(ConfigurationError, match=message):
        await mcp_ghost(**arguments)


def test_the_sync_convenience_runs_one_loop_and_refuses_to_nest():
    peer = peer_for("openai", [text_reply("hello")], FAULT_TOOLS)
    client = httpx.AsyncClient(transport=peer.mock_transport())
    arguments = dict(
        server_config=servers(marker()),
        system_prompt="s",
        provider="openai",
        api_key=peer.api_key,
        user_prompt="u",
        http_client=client,
    )
    assert mcp_ghost_sync(**arguments).final_result == "hello"

    async def inside():
        with pytest.raises(NestedEventLoopError, match="await mcp_ghost"):
            mcp_ghost_sync(**arguments)

    asyncio.run(inside())


async def test_the_documented_defaults_namespace_timeout_iterations_and_memory(caplog):
    """Spec 004: namespace "mcp_ghost", timeout 30.0, max_iterations 10, conversation_memory."""
    caplog.set_level(logging.INFO, logger="mcp_ghost")
    peer = peer_for(
        "openai",
        [
            *[tool_calls_reply(("faults.echo", {"text": str(i)})) for i in range(2)],
            text_reply("ok"),
        ],
        FAULT_TOOLS,
    )
    result = await ghost(peer, marker())
    assert result["success"]
    events = [r for r in caplog.records if r.name == "mcp_ghost" and hasattr(r, "event_type")]
    by_type = {r.event_type: r.fields for r in events}
    assert by_type["mcp_iteration_start"]["max_iterations"] == 10
    assert by_type["mcp_tool_result"]["timeout_seconds"] == 30.0
    assert [len(r["messages"]) for r in peer.requests] == [2, 4, 6], "the whole history is sent"


async def test_a_run_that_fails_after_tools_ran_keeps_what_it_did():
    """Spec 004 partial-success handling: the chain, iterations and usage survive the failure."""
    peer = peer_for(
        "openai", [tool_calls_reply(("faults.echo", {"text": "a"})), HttpFault(400)], FAULT_TOOLS
    )
    result = await ghost(peer, marker())
    assert not result["success"] and "HTTP 400" in result["errors"][-1]["error"]
    assert [(e.tool_name, e.result) for e in result.tool_chain] == [("faults.echo", "echo: a")]
    meta = result.execution_metadata
    discovered = len(FAULT_TOOLS) + 1  # the fault server also has start_failing_http
    assert (meta.total_iterations, meta.tools_discovered, meta.servers_connected) == (
        2,
        discovered,
        1,
    )
    assert meta.token_usage.total_tokens == 15
    assert "after 1 tool call(s) in 2 iteration(s)" in result.summary


async def test_a_call_with_arguments_that_are_not_json_is_logged_with_its_text(caplog):
    """P28: every tool call is logged with its arguments, even ones that do not parse."""
    caplog.set_level(logging.INFO, logger="mcp_ghost")
    raw = '{"text": "unclosed'
    peer = peer_for(
        "openai", [tool_calls_reply(("faults.echo", raw)), text_reply("sorry")], FAULT_TOOLS
    )
    result = await ghost(peer, marker(), enable_backtracking=False)
    calls = [r.fields for r in caplog.records if getattr(r, "event_type", "") == "mcp_tool_call"]
    assert [(c["tool_name"], c["arguments"]) for c in calls] == [("faults.echo", raw)]
    assert "arguments_error" in calls[0]
    assert "invalid JSON arguments" in result.tool_chain[0].error


async def test_without_an_api_key_the_working_directory_env_file_gives_it(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.chdir(tmp_path)
    peer = peer_for("openai", [text_reply("hello")], FAULT_TOOLS)
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={peer.api_key}\n")
    async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
        result = await mcp_ghost(servers(marker()), "s", "openai", None, "u", http_client=client)
    assert peer.rejections == [] and result["final_result"] == "hello"
    assert "OPENAI_API_KEY" not in os.environ, "the library reads .env without changing os.environ"


async def test_a_long_run_is_sent_condensed_past_the_context_budget(caplog):
    caplog.set_level(logging.INFO, logger="mcp_ghost")
    long = "word " * 400
    peer = peer_for(
        "openai",
        [
            *[tool_calls_reply(("faults.echo", {"text": f"{i} {long}"})) for i in range(5)],
            text_reply("ok"),
        ],
        FAULT_TOOLS,
    )
    result = await ghost(peer, marker(), context_budget_tokens=1500)
    assert result["success"] and len(result["conversation_history"]) == 2 + 5 * 2 + 1
    sizes = [len(r["messages"]) for r in peer.requests]
    assert sizes[:3] == [2, 4, 6] and max(sizes) < 2 + 5 * 2, "later requests are condensed"
    summary = peer.requests[-1]["messages"][2]["content"]
    assert summary.startswith("Summary of") and "faults.echo" in summary
    compacted = [
        r for r in caplog.records if getattr(r, "event_type", "") == "mcp_context_compacted"
    ]
    assert compacted and compacted[-1].fields["max_tokens"] == 1500


LINGERER = (
    "import time\n"
    "from mcp.server.mcpserver import MCPServer\n"
    "server = MCPServer('lingerer')\n"
    "@server.tool()\n"
    "def nothing() -> str:\n"
    "    return 'nothing'\n"
    "try:\n"
    "    server.run()\n"
    "finally:\n"
    "    time.sleep(60)  # outlives stdin EOF: only SIGTERM ends it\n"
)


async def test_shutdown_never_blocks_the_callers_event_loop(tmp_path):
    """Issue 12: ending a server that ignores stdin EOF takes seconds, on a worker thread."""
    script = tmp_path / "lingerer.py"
    script.write_text(LINGERER)
    config = {"mcpServers": {"lingerer": {"command": sys.executable, "args": [str(script)]}}}
    peer = peer_for("openai", [text_reply("nothing to do")], ["lingerer.nothing"])
    gaps: list[float] = []

    async def heartbeat() -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.05)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    beat = asyncio.create_task(heartbeat())
    started = time.monotonic()
    result = await ghost(peer, marker(), server_config=config)
    took = time.monotonic() - started
    await asyncio.sleep(0.2)  # the beat that a stall would have delayed
    beat.cancel()
    assert result.success and result.final_result == "nothing to do"
    assert took > 1.5, "the lingering server was waited for before mcp_ghost returned"
    assert max(gaps) < 1.0, f"the event loop stalled for {max(gaps):.1f}s"


LATE_STARTER = (
    "import sys, time\n"
    "from mcp.server.mcpserver import MCPServer\n"
    "name, delay, log = sys.argv[1], float(sys.argv[2]), sys.argv[3]\n"
    "with open(log, 'a') as f:\n"
    "    f.write(f'{name} {time.time()}\\n')\n"
    "time.sleep(delay)\n"
    "server = MCPServer(name)\n"
    "@server.tool()\n"
    "def ping() -> str:\n"
    "    return name\n"
    "server.run()\n"
)


async def test_every_server_starts_before_the_first_handshake(tmp_path):
    """Issue 14: the servers of a config start together, not one handshake after another."""
    script, log = tmp_path / "late.py", tmp_path / "starts.log"
    script.write_text(LATE_STARTER)
    config = {
        "mcpServers": {
            name: {
                "command": sys.executable,
                "args": [str(script), name, "3", str(log)],
                "sandbox": {"write": [str(tmp_path)]},
            }  # its log: confined as every server
            for name in ("first", "second")
        }
    }
    peer = peer_for("openai", [text_reply("both up")], ["first.ping", "second.ping"])
    result = await ghost(peer, marker(), server_config=config)
    assert result.success and result.execution_metadata.servers_connected == 2
    starts = dict(line.split() for line in log.read_text().splitlines())
    assert abs(float(starts["second"]) - float(starts["first"])) < 3.0, starts


@pytest.mark.parametrize("eras", ["modern", "handshake", "both"])
async def test_a_server_of_either_era_or_both_is_connected_listed_and_called(eras, tmp_path):
    """MCP-Ghost speaks each server's newest era, as the agent does (issue 38)."""
    mark, log = marker(), tmp_path / "methods.log"
    echo = {"name": "echo", "description": "says it back", "inputSchema": {"type": "object"}}
    env = {"MARK": mark, "RAW_MCP_ERAS": eras, "RAW_MCP_LOG": str(log),
           "RAW_MCP_TOOLS": json.dumps([echo])}  # fmt: skip
    sandbox = {"write": [str(tmp_path)]}  # its log: confined as every server
    config = {"mcpServers": {"raw": {"command": sys.executable, "args": [str(RAW_SERVER)],
                                     "env": env, "sandbox": sandbox}}}  # fmt: skip
    replies = [tool_calls_reply(("raw.echo", {"a": 1})), text_reply("ok")]
    peer = peer_for("openai", replies, ["raw.echo"])
    result = await ghost(peer, mark, server_config=config)
    assert result.success and [e.result for e in result.tool_chain] == ['{"a": 1}']
    methods = [line.split(" ", 1)[1] for line in log.read_text().splitlines()]
    handshake = eras == "handshake"
    assert ("initialize" in methods) == handshake
    assert methods[-1] == ("tools/call" if handshake else "tools/call +meta")
    assert_no_server_left(mark)
