"""The fault matrix: each fault a named case with the outcome the spec's error table gives it.

Every case runs the real agent (ZorkAgent), the real OpenAI-compatible adapter against a
provider peer, and the real stdio adapter against tests/support/fault_server.py. Every case
ends with valid game commands or the documented error, and no server process left behind.

| case                        | spec: error table row or rule        | outcome                    |
|-----------------------------|--------------------------------------|----------------------------|
| llm_429_then_recovers       | adapter retry (Retry-After)          | command after a retry      |
| llm_500_then_recovers       | adapter retry                        | command after a retry      |
| llm_timeout_then_recovers   | adapter retry                        | command after a retry      |
| llm_keeps_failing           | LLM API error, descriptive message   | LLMError: provider, status |
| malformed_tool_call_json    | invalid arguments: skip the tool     | command; error in history  |
| unknown_tool_name           | tool call fails: error to history    | command; error in history  |
| empty_llm_response          | no content: force the final action   | command from forced call   |
| content_not_json            | prose over lines: parse fallback (P2)| look; agent_parse_error    |
| never_ending_tool_calls     | max iterations: force the action     | command from forced call   |
| server_missing              | start fails on turn 1: fail fast     | startup error with advice  |
| server_dies_at_start        | start fails on turn 1: fail fast     | startup error, no retry    |
| server_hangs_at_start       | start fails on turn 1: fail fast     | startup error (timeout)    |
| server_dies_mid_call        | server dies mid-turn: force action   | command; next turn new one |
| tool_hangs                  | tool call timeout: end the batch     | command; rest skipped      |
| server_flaps_on_later_turns | later turn: retry once, then disable | commands; never reconnects |
| junk_on_stdout              | stdio robustness                     | tools work; junk logged    |
| ten_mb_tool_result          | bounded context                      | command; result cut to cap |
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.support.fault_server import FAULT_TOOLS
from tests.support.llm_peers import HttpFault, peer_for
from tests.support.paths import FAULT_SERVER
from tests.support.processes import processes_in_groups
from zork_mcp.adapters.llm.endpoint import RetryPolicy
from zork_mcp.adapters.llm.fake import action_reply, text_reply, tool_calls_reply
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.errors import LLMError, MCPServerStartupError
from zork_mcp.domain.loop.agent_response import FALLBACK_ACTION
from zork_mcp.domain.servers.confinement import Sandbox
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.settings import MCPSettings

pytestmark = pytest.mark.slow
RESULT_CAP = 50_000


async def no_sleep(_: float) -> None:
    return None


class TimeoutFirst(httpx.AsyncBaseTransport):
    """The provider times out on the first `count` requests, then the peer answers."""

    def __init__(self, inner: httpx.AsyncBaseTransport, count: int) -> None:
        self.inner, self.count = inner, count

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.count > 0:
            self.count -= 1
            raise httpx.ReadTimeout("the provider did not answer in time", request=request)
        return await self.inner.handle_async_request(request)


@dataclass
class Rig:
    """One episode's worth of real parts around one fault."""

    tmp_path: Path
    replies: list
    mode: str = "serve"
    command: str = sys.executable
    env: dict[str, str] = field(default_factory=dict)
    llm_timeouts: int = 0
    settings: MCPSettings = field(
        default_factory=lambda: MCPSettings(
            enabled=True, max_tool_iterations=4, tool_call_timeout_seconds=1.0
        )
    )

    def __post_init__(self) -> None:
        self.peer = peer_for("openai", list(self.replies), FAULT_TOOLS)
        config = MCPServerConfig(  # confined as every server is; `flaky` counts starts here
            command=self.command,
            args=(str(FAULT_SERVER), self.mode),
            env=self.env or None,
            sandbox=Sandbox(write=(str(self.tmp_path),)),
        )
        self.server = stdio_tool_server(
            {"faults": config},
            startup_timeout_seconds=3,
            background_spare=False,
            stderr_path=self.tmp_path / "stderr.log",
            shared_fork_server=True,  # the worker's: what is judged is the agent's handling
        )
        self.telemetry = FakeTelemetry()
        self.transport = TimeoutFirst(self.peer.mock_transport(), self.llm_timeouts)
        self.agent = ZorkAgent(
            llm_session=self._llm_session,
            settings=self.settings,
            telemetry=self.telemetry,
            system_prompt="You play Zork.",
            tool_server=self.server,
        )

    @asynccontextmanager
    async def _llm_session(self):
        async with httpx.AsyncClient(transport=self.transport) as client:
            yield PROVIDERS["openrouter"].llm(
                client,
                PROVIDERS["openrouter"].resolve("openai/gpt-4o-mini"),
                api_key=self.peer.api_key,
                base_url="https://peer.invalid/api/v1",
                retry=RetryPolicy(attempts=3, initial_delay=0.01, sleep=no_sleep),
            )

    def turn(self) -> str:
        action = self.agent.get_action_with_reasoning("West of House")["action"]
        assert action and "\n" not in action and action == " ".join(action.split())
        return action

    def tool_results(self, request: int) -> list[dict]:
        messages = self.peer.requests[request]["messages"]
        return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]

    def types(self) -> list[str]:
        return self.telemetry.types()


# ---- the cases -------------------------------------------------------------------------


def llm_429_then_recovers(tmp_path):
    rig = Rig(tmp_path, [HttpFault(429, "slow down", {"retry-after": "0"}), action_reply("north")])
    assert rig.turn() == "north" and len(rig.peer.requests) == 2
    return rig


def llm_500_then_recovers(tmp_path):
    rig = Rig(tmp_path, [HttpFault(500, "internal error"), action_reply("north")])
    assert rig.turn() == "north" and len(rig.peer.requests) == 2
    return rig


def llm_timeout_then_recovers(tmp_path):
    rig = Rig(tmp_path, [action_reply("north")], llm_timeouts=1)
    assert rig.turn() == "north" and len(rig.peer.requests) == 1
    return rig


def llm_keeps_failing(tmp_path):
    rig = Rig(tmp_path, [HttpFault(503, "overloaded")] * 3)
    with pytest.raises(LLMError) as caught:
        rig.turn()
    assert caught.value.status == 503 and rig.peer.api_key not in str(caught.value)
    return rig


def malformed_tool_call_json(tmp_path):
    rig = Rig(tmp_path, [tool_calls_reply(("faults.echo", '{"text": ')), action_reply("look")])
    assert rig.turn() == "look"
    (result,) = rig.tool_results(1)
    assert "invalid JSON arguments" in result["error"]
    return rig


def unknown_tool_name(tmp_path):
    rig = Rig(tmp_path, [tool_calls_reply(("faults.nope", {})), action_reply("west")])
    assert rig.turn() == "west"
    assert "unknown tool" in rig.tool_results(1)[0]["error"]
    return rig


def empty_llm_response(tmp_path):
    rig = Rig(tmp_path, [text_reply(None), action_reply("east")])
    assert rig.turn() == "east"
    assert "mcp_unexpected_state" in rig.types() and "response_format" in rig.peer.requests[1]
    return rig


def content_not_json(tmp_path):
    rig = Rig(tmp_path, [text_reply("I think I will go north now.\nThe forest is dark.")])
    assert rig.turn() == FALLBACK_ACTION and "agent_parse_error" in rig.types()
    return rig


def never_ending_tool_calls(tmp_path):
    calls = [tool_calls_reply(("faults.echo", {"text": str(i)})) for i in range(4)]
    rig = Rig(tmp_path, [*calls, action_reply("south")])
    assert rig.turn() == "south"
    final = rig.peer.requests[-1]
    assert "tools" not in final and "response_format" in final and len(rig.peer.requests) == 5
    return rig


def server_missing(tmp_path):
    rig = Rig(tmp_path, [action_reply("north")], command="no-such-mcp-server-xyz")
    with pytest.raises(MCPServerStartupError, match="pip install"):
        rig.turn()
    assert rig.peer.requests == []
    return rig


def server_dies_at_start(tmp_path):
    rig = Rig(tmp_path, [action_reply("north")], mode="exit-at-start")
    with pytest.raises(MCPServerStartupError, match="faults"):
        rig.turn()
    assert len(rig.server.server_pids) == 1, "turn 1 is never retried"
    return rig


def server_hangs_at_start(tmp_path):
    rig = Rig(tmp_path, [action_reply("north")], mode="hang-at-start")
    with pytest.raises(MCPServerStartupError, match=r"timed out|startup"):
        rig.turn()
    return rig


def server_dies_mid_call(tmp_path):
    rig = Rig(
        tmp_path,
        [
            tool_calls_reply(("faults.crash", {}), ("faults.echo", {"text": "after"})),
            action_reply("up"),
            tool_calls_reply(("faults.echo", {"text": "again"})),
            action_reply("down"),
        ],
    )
    assert rig.turn() == "up"
    crashed, skipped = rig.tool_results(1)
    assert "stopped" in crashed["error"] and skipped["error"].startswith("skipped")
    assert "tools" not in rig.peer.requests[1], "no more tools after the server died"
    assert rig.turn() == "down"
    assert rig.tool_results(3) == [{"content": "echo: again"}], "the next turn has a new server"
    return rig


def tool_hangs(tmp_path):
    rig = Rig(
        tmp_path,
        [
            tool_calls_reply(("faults.slow", {"seconds": 60}), ("faults.echo", {"text": "x"})),
            action_reply("wait"),
        ],
    )
    assert rig.turn() == "wait"
    timed_out, skipped = rig.tool_results(1)
    assert "timed out after 1s" in timed_out["error"] and skipped["error"].startswith("skipped")
    assert rig.peer.requests[1].get("tools"), "the LLM decides what next, with tools"
    return rig


def server_flaps_on_later_turns(tmp_path):
    starts = tmp_path / "starts"
    rig = Rig(
        tmp_path,
        [action_reply(command) for command in ("n", "s", "e", "w", "u")],
        mode="flaky",
        env={"FAULT_STARTS": str(starts), "FAULT_FAILING_STARTS": "2,4,5"},
    )
    assert [rig.turn() for _ in range(5)] == ["n", "s", "e", "w", "u"]
    assert len(starts.read_text().splitlines()) == 5, "1 ok; 2 fail, 3 ok; 4 and 5 fail; none"
    assert rig.types().count("mcp_connect_retry_succeeded") == 1
    assert rig.types().count("mcp_disabled_fallback") == 1
    assert [bool(r.get("tools")) for r in rig.peer.requests] == [True, True, False, False, False]
    return rig


def junk_on_stdout(tmp_path):
    rig = Rig(
        tmp_path,
        [tool_calls_reply(("faults.echo", {"text": "hi"})), action_reply("north")],
        mode="junk-then-serve",
    )
    assert rig.turn() == "north" and rig.tool_results(1) == [{"content": "echo: hi"}]
    assert "Welcome to the fault server" in (tmp_path / "stderr.log").read_text()
    return rig


def ten_mb_tool_result(tmp_path):
    rig = Rig(tmp_path, [tool_calls_reply(("faults.big", {"megabytes": 10})), action_reply("read")])
    assert rig.turn() == "read"
    (message,) = [m for m in rig.peer.requests[1]["messages"] if m["role"] == "tool"]
    assert len(message["content"]) <= RESULT_CAP
    assert "of 10485760 characters shown" in json.loads(message["content"])["content"]
    return rig


CASES: dict[str, Callable[[Path], Rig]] = {
    case.__name__: case
    for case in (
        llm_429_then_recovers,
        llm_500_then_recovers,
        llm_timeout_then_recovers,
        llm_keeps_failing,
        malformed_tool_call_json,
        unknown_tool_name,
        empty_llm_response,
        content_not_json,
        never_ending_tool_calls,
        server_missing,
        server_dies_at_start,
        server_hangs_at_start,
        server_dies_mid_call,
        tool_hangs,
        server_flaps_on_later_turns,
        junk_on_stdout,
        ten_mb_tool_result,
    )
}


@pytest.mark.parametrize("name", CASES)
def test_fault(name, tmp_path):
    rig = CASES[name](tmp_path)
    rig.server.close()
    assert processes_in_groups(rig.server.spawned_pids) == [], f"{name} left a server process"
    assert rig.peer.rejections == [], "every request kept the provider's rules"


def test_the_table_lists_every_case():
    table = [line.split("|")[1].strip() for line in __doc__.splitlines() if line.startswith("| ")]
    assert table[1:] == list(CASES)
