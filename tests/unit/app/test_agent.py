"""The agent's sync/async boundary, the orchestrator's episode loop, and Langfuse spans."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import uuid

import pytest
from langfuse import Langfuse
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.support.agents import agent_for
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import FunctionLLM, ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.adapters.telemetry.langfuse import LangfuseTelemetry
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.errors import NestedEventLoopError
from zork_mcp.domain.game.trilogy import ZORK1


def test_each_action_runs_exactly_one_event_loop(monkeypatch):
    runs = []
    real_run = asyncio.run
    monkeypatch.setattr(asyncio, "run", lambda coro: runs.append(1) or real_run(coro))
    agent = agent_for(ScriptedLLM([action_reply("north"), action_reply("south")]))
    assert agent.get_action_with_reasoning("state")["action"] == "north"
    assert agent.get_action_with_reasoning("state")["action"] == "south"
    assert runs == [1, 1]


async def test_calling_the_sync_api_inside_a_loop_is_a_clear_error():
    agent = agent_for(ScriptedLLM([action_reply("north")]))
    with pytest.raises(NestedEventLoopError, match=r"await agent\.decide"):
        agent.get_action_with_reasoning("state")
    assert (await agent.decide("state")).answer.response.action == "north"


def test_the_episode_ends_on_game_over_with_tools_and_events():
    def think(thought: str) -> str:
        return thought

    server = FakeToolServer("box", {"think": think})
    llm = ScriptedLLM(
        [
            tool_calls_reply(("box.think", {"thought": "go"})),
            action_reply("north"),
            action_reply("east"),
            action_reply("take egg"),
        ]
    )
    telemetry = FakeTelemetry()
    orchestrator = Orchestrator(
        profile=ZORK1,
        game=FakeGameEnv(),
        agent=agent_for(llm, telemetry=telemetry, tool_server=server),
        telemetry=telemetry,
        episode_id="t",
        max_turns=10,
    )
    summary = orchestrator.run()
    assert (summary.score, summary.turns, summary.end_reason) == (10, 3, "game_over")
    assert summary.tool_calls == 1 and server.open_sessions == 0
    first_state = llm.requests[0].messages[1].text
    assert "Location: West of House" in first_state and "Inventory:" in first_state
    assert telemetry.types()[-1] == "episode_end"


def test_ctrl_c_ends_the_episode_cleanly():
    def interrupt(request):
        raise KeyboardInterrupt

    telemetry = FakeTelemetry()
    orchestrator = Orchestrator(
        profile=ZORK1,
        game=FakeGameEnv(),
        agent=agent_for(FunctionLLM(interrupt), telemetry=telemetry),
        telemetry=telemetry,
        episode_id="t",
        max_turns=5,
    )
    summary = orchestrator.run()
    assert summary.end_reason == "interrupted"
    assert telemetry.of_type("episode_end")[0].fields["end_reason"] == "interrupted"


def test_another_thread_stops_an_episode_mid_call_as_ctrl_c_would():
    """A sweep worker's episodes run in threads, where no signal arrives: interrupt()
    cancels the turn in flight (its tool session closed) and the episode ends interrupted."""
    asked, closed = threading.Event(), threading.Event()

    async def slow(request):
        asked.set()
        try:
            await asyncio.sleep(60)
        finally:
            closed.set()  # the turn's own clean-up ran
        return action_reply("north")

    telemetry = FakeTelemetry()
    agent = agent_for(FunctionLLM(slow), telemetry=telemetry)
    orchestrator = Orchestrator(
        profile=ZORK1,
        game=FakeGameEnv(),
        agent=agent,
        telemetry=telemetry,
        episode_id="t",
        max_turns=5,
    )
    episode = concurrent.futures.ThreadPoolExecutor(1).submit(orchestrator.run)
    assert asked.wait(10)
    agent.interrupt()
    assert episode.result(10).end_reason == "interrupted"
    assert closed.is_set() and orchestrator.summary.turns == 0


def test_an_interrupt_between_turns_stops_the_next_one():
    agent = agent_for(ScriptedLLM([action_reply("north")]))
    agent.interrupt()
    with pytest.raises(KeyboardInterrupt):
        agent.get_action_with_reasoning("state")


def test_langfuse_gets_session_tool_and_generation_spans():
    exporter = InMemorySpanExporter()
    key = f"pk-lf-{uuid.uuid4().hex}"
    client = Langfuse(
        public_key=key,
        secret_key="sk-lf-test",
        base_url="http://127.0.0.1:9",
        span_exporter=exporter,
        tracer_provider=TracerProvider(),
    )
    server = FakeToolServer("box", {"think": lambda thought: thought})
    llm = ScriptedLLM([tool_calls_reply(("box.think", {"thought": "t"})), action_reply("look")])
    agent = agent_for(llm, telemetry=LangfuseTelemetry(client), tool_server=server)
    agent.get_action_with_reasoning("state")
    client.flush()
    names = [span.name for span in exporter.get_finished_spans()]
    assert "agent-tool-calling-session" in names and "mcp-tool-box.think" in names
    assert names.count("agent-llm-call") == 2
    exported = " ".join(str(dict(span.attributes)) for span in exporter.get_finished_spans())
    assert "sk-lf-test" not in exported
