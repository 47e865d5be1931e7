"""Traces as Langfuse and OpenTelemetry users read them (issue 18).

A two-turn episode runs through the app's own telemetry builder with the real Langfuse SDK
and the real OpenTelemetry SDK, each exporting OTLP/HTTP protobuf to a local receiver
(tests/support/otlp_receiver.py). Langfuse attributes follow its OpenTelemetry mapping
(https://langfuse.com/docs/opentelemetry/get-started#property-mapping), the others the
GenAI semantic conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager

import pytest

from tests.support.otlp_receiver import STATUS_ERROR, receivers
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.builders.providers import resolve_model
from zork_mcp.builders.settings import RunOptions
from zork_mcp.builders.telemetry import episode_telemetry
from zork_mcp.builders.telemetry import telemetry as telemetry_of
from zork_mcp.domain.game.trilogy import ZORK1
from zork_mcp.domain.llm.messages import LLMResponse, Usage
from zork_mcp.domain.settings import MCPSettings

MODEL = "openai/gpt-4o-mini"
ANSWERING_MODEL = "openai/gpt-4o-mini-2024-07-18"
EPISODE = "ep-traces"


def priced(reply: LLMResponse, cost: float) -> LLMResponse:
    """The reply as OpenRouter reports it: the dated model, cached tokens and the cost."""
    return LLMResponse(
        reply.content,
        ANSWERING_MODEL,
        Usage(120, 30, cached_tokens=100, cost_usd=cost),
        reply.tool_calls,
        reply.finish_reason,
    )


def think(thought: str) -> str:
    return thought


def broken(thought: str) -> str:
    raise RuntimeError("the notebook is full")


async def slow(thought: str) -> str:
    await asyncio.sleep(5)
    return thought


def play_two_turns(tmp_path, llm) -> None:
    options = RunOptions(
        model=resolve_model("openrouter", MODEL),
        seed=7,
        episode_id=EPISODE,
        log_dir=tmp_path,
        mcp_config=tmp_path / "notes_mcp.json",
    )
    settings = MCPSettings(enabled=True, tool_call_timeout_seconds=0.2)
    server = FakeToolServer("box", {"think": think, "broken": broken, "slow": slow})

    @asynccontextmanager
    async def session():
        yield llm

    with telemetry_of(episode_telemetry(options, settings)) as telemetry:
        agent = ZorkAgent(
            llm_session=session,
            settings=settings,
            telemetry=telemetry,
            system_prompt="sys",
            tool_server=server,
        )
        Orchestrator(
            profile=ZORK1,
            game=FakeGameEnv(),
            agent=agent,
            telemetry=telemetry,
            episode_id=EPISODE,
            max_turns=2,
        ).run()


def two_turn_script() -> ScriptedLLM:
    return ScriptedLLM(
        [
            priced(tool_calls_reply(("box.think", {"thought": "go north"})), 0.0011),
            priced(action_reply("north"), 0.0012),
            priced(tool_calls_reply(("box.broken", {"thought": "x"})), 0.0013),
            priced(tool_calls_reply(("box.slow", {"thought": "y"})), 0.0014),
            priced(action_reply("east"), 0.0015),
        ],
        model=MODEL,
    )


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch, receivers(monkeypatch) as exported:
        play_two_turns(tmp_path_factory.mktemp("episode"), two_turn_script())
    return exported


def test_every_turn_is_a_named_trace_in_the_episode_session(exported):
    spans = exported.langfuse.spans
    turns = exported.langfuse.named("agent-tool-calling-session")
    assert [s.get("langfuse.trace.name") for s in turns] == [
        f"episode {EPISODE} turn 1",
        f"episode {EPISODE} turn 2",
    ]
    assert len({s.trace_id for s in turns}) == 2, "one trace per turn"
    shown = [json.loads(s.get("langfuse.observation.input"))["content"] for s in turns]
    assert "Location: West of House" in shown[0] and "Score: 0" in shown[1]
    outputs = [s.get("langfuse.observation.output") for s in turns]
    assert outputs == ["north", "east"]
    assert {s.get("session.id") for s in spans} == {EPISODE}, "every span is in the session"
    for turn in turns:
        assert set(turn.get("langfuse.trace.tags")) == {
            "provider:openrouter",
            f"model:{MODEL}",
            "mcp:notes_mcp.json",
        }
        assert json.loads(turn.get("langfuse.trace.metadata.seed")) == "7"
        assert json.loads(turn.get("langfuse.trace.metadata.provider")) == "openrouter"


def test_generations_carry_model_parameters_usage_and_cost(exported):
    generations = exported.langfuse.named("agent-llm-call")
    assert len(generations) == 5
    costs = []
    for generation in generations:
        assert generation.get("langfuse.observation.type") == "generation"
        assert generation.get("langfuse.observation.model.name") == ANSWERING_MODEL
        usage = json.loads(generation.get("langfuse.observation.usage_details"))
        assert usage == {"input": 20, "input_cached_tokens": 100, "output": 30}
        costs.append(json.loads(generation.get("langfuse.observation.cost_details"))["total"])
        parameters = json.loads(generation.get("langfuse.observation.model.parameters"))
        assert "tools" in parameters
    assert sorted(costs) == [0.0011, 0.0012, 0.0013, 0.0014, 0.0015]


def test_failed_and_timed_out_tool_calls_stand_out(exported):
    tools = {s.name: s for s in exported.langfuse.starting("mcp-tool-")}
    assert set(tools) == {"mcp-tool-box.think", "mcp-tool-box.broken", "mcp-tool-box.slow"}
    assert tools["mcp-tool-box.think"].get("langfuse.observation.level") in (None, "DEFAULT")
    assert tools["mcp-tool-box.broken"].get("langfuse.observation.level") == "ERROR"
    assert "the notebook is full" in tools["mcp-tool-box.broken"].get(
        "langfuse.observation.status_message"
    )
    assert tools["mcp-tool-box.slow"].get("langfuse.observation.level") == "WARNING"
    assert "timed out" in tools["mcp-tool-box.slow"].get("langfuse.observation.status_message")
    for span in tools.values():
        assert span.get("langfuse.observation.type") == "tool"
        assert json.loads(span.get("langfuse.observation.metadata.server_name")) == "box"


def test_episode_start_and_end_are_in_the_session(exported):
    (start,) = exported.langfuse.named("episode-start")
    (end,) = exported.langfuse.named("episode-end")
    assert start.get("session.id") == end.get("session.id") == EPISODE
    assert end.get("langfuse.trace.name") == f"episode {EPISODE} episode-end"
    result = json.loads(end.get("langfuse.observation.output"))
    assert result["end_reason"] == "turn_limit" and result["moves"] == 2
    assert result["score"] == 0 and result["turns"] == 2
    assert result["cost_usd"] == pytest.approx(0.0065) and result["cached_tokens"] == 500


def test_otlp_spans_follow_the_genai_conventions(exported):
    otlp = exported.otlp
    assert set(otlp.paths) == {"/v1/traces"}
    assert {s.resource.get("service.name") for s in otlp.spans} == {"zork-mcp"}
    chats = otlp.named(f"chat {MODEL}")
    assert len(chats) == 5
    for chat in chats:
        assert chat.get("gen_ai.operation.name") == "chat"
        assert chat.get("gen_ai.provider.name") == "openrouter"
        assert chat.get("gen_ai.request.model") == MODEL
        assert chat.get("gen_ai.response.model") == ANSWERING_MODEL
        assert chat.get("gen_ai.usage.input_tokens") == 120
        assert chat.get("gen_ai.usage.output_tokens") == 30
        assert chat.get("gen_ai.usage.cache_read.input_tokens") == 100
        assert chat.get("gen_ai.conversation.id") == EPISODE
        assert otlp.parent_of(chat).name == "invoke_agent zork-episode"
        assert "gen_ai.input.messages" not in chat.attributes, "content is opt-in"
    assert sorted(c.get("gen_ai.usage.cost") for c in chats) == [
        0.0011, 0.0012, 0.0013, 0.0014, 0.0015
    ]  # fmt: skip
    turns = otlp.named("invoke_agent zork-episode")
    assert [t.get("zork_mcp.turn") for t in turns] == [1, 2]
    assert all(t.get("gen_ai.operation.name") == "invoke_agent" for t in turns)


def test_otlp_tool_spans_name_the_tool_and_mark_failures(exported):
    tools = {s.name: s for s in exported.otlp.starting("execute_tool ")}
    assert set(tools) == {
        "execute_tool box.think",
        "execute_tool box.broken",
        "execute_tool box.slow",
    }
    for name, span in tools.items():
        assert span.get("gen_ai.operation.name") == "execute_tool"
        assert span.get("gen_ai.tool.name") == name.removeprefix("execute_tool ")
        assert span.get("gen_ai.tool.call.id").startswith("call_")
        assert span.get("zork_mcp.mcp.server") == "box"
    assert tools["execute_tool box.think"].status_code != STATUS_ERROR
    broken, slow = tools["execute_tool box.broken"], tools["execute_tool box.slow"]
    assert broken.status_code == slow.status_code == STATUS_ERROR
    assert "the notebook is full" in broken.status_message
    assert (broken.get("error.type"), slow.get("error.type")) == ("tool_error", "timed_out")
    assert slow.get("zork_mcp.level") == "warning"


def test_otlp_episode_start_and_end_carry_the_result(exported):
    (start,) = exported.otlp.named("episode_start")
    (end,) = exported.otlp.named("episode_end")
    assert start.get("session.id") == end.get("session.id") == EPISODE
    assert (end.get("zork_mcp.end_reason"), end.get("zork_mcp.moves")) == ("turn_limit", 2)
    assert end.get("zork_mcp.score") == 0
    assert end.get("zork_mcp.cost_usd") == pytest.approx(0.0065)
    assert end.get("zork_mcp.prompt_tokens") == 600


def test_langfuse_and_otlp_keep_their_own_trees(exported):
    for receiver in (exported.langfuse, exported.otlp):
        ids = {s.span_id for s in receiver.spans}
        orphans = [
            s.name for s in receiver.spans if s.parent_span_id and s.parent_span_id not in ids
        ]
        assert orphans == []
    langfuse_traces = {s.trace_id for s in exported.langfuse.spans}
    assert langfuse_traces.isdisjoint({s.trace_id for s in exported.otlp.spans})


def test_no_secret_reaches_an_exported_span(exported):
    for secret in exported.secrets:
        for body in exported.langfuse.bodies + exported.otlp.bodies:
            assert secret.encode() not in body
