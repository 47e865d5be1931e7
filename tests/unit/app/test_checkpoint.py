"""Per-turn checkpoints: the orchestrator saves one after every turn, and a resumed episode
continues with the same game state, objective, recent actions and totals."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest

from tests.support.agents import agent_for
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.storage.checkpoint_file import FileCheckpoints
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.episode.episode_state import Place
from zork_mcp.domain.errors import ConfigurationError, LLMError
from zork_mcp.domain.game.trilogy import ZORK1
from zork_mcp.domain.settings import MCPSettings


def orchestrator(llm, directory, *, resume=False, max_turns=10) -> Orchestrator:
    @asynccontextmanager
    async def session():
        yield llm

    telemetry = FakeTelemetry()
    agent = ZorkAgent(llm_session=session, settings=MCPSettings(), telemetry=telemetry,
                      system_prompt="sys")  # fmt: skip
    return Orchestrator(profile=ZORK1, game=FakeGameEnv(), agent=agent, telemetry=telemetry,
                        episode_id="e",
                        max_turns=max_turns, checkpoints=FileCheckpoints(directory),
                        resume=resume)  # fmt: skip


def test_an_episode_broken_by_an_error_resumes_where_it_stopped(tmp_path):
    broken = ScriptedLLM([action_reply("north", new_objective="find the egg"),
                          LLMError("provider down")])  # fmt: skip
    with pytest.raises(LLMError):
        orchestrator(broken, tmp_path).run()
    saved = FileCheckpoints(tmp_path).load()
    episode = saved.episode
    assert (saved.turn, episode.objective, [t.command for t in episode.turns]) == (
        1,
        "find the egg",
        ["north"],
    )
    assert episode.turns[0].answer.startswith("North of House") and episode.turns[0].place == (
        Place("North of House", 11))  # fmt: skip
    rest = ScriptedLLM([action_reply("east"), action_reply("take egg")])
    summary = orchestrator(rest, tmp_path, resume=True).run()
    assert (summary.turns, summary.score, summary.end_reason) == (3, 10, "game_over")
    assert summary.room == "Behind House" and summary.usage.prompt_tokens == 30
    shown = rest.requests[0].messages
    state = shown[-1].text
    assert "Current objective: find the egg" in state and "[Turn 2]" in state
    assert state.endswith(episode.turns[0].answer)  # the latest answer, whole
    assert shown[-2].text == '{"action": "north"}'  # the turn before, as history


def test_resuming_without_a_checkpoint_says_what_to_do(tmp_path):
    with pytest.raises(ConfigurationError, match="Nothing to resume"):
        orchestrator(ScriptedLLM([]), tmp_path, resume=True).run()
    (tmp_path / "checkpoint.json").write_bytes(b"not a checkpoint")
    with pytest.raises(ConfigurationError, match="not a checkpoint zork-mcp wrote"):
        orchestrator(ScriptedLLM([]), tmp_path, resume=True).run()


def test_a_resumed_episode_numbers_its_next_turn_on_from_the_checkpoint_everywhere(tmp_path):
    """After --resume at turn 2, the loop's events, its spans and the turn say turn 3."""
    first = ScriptedLLM([action_reply("north"), action_reply("east")])
    orchestrator(first, tmp_path, max_turns=2).run()
    llm = ScriptedLLM([tool_calls_reply(("box.think", {"thought": "egg"})),
                       action_reply("take egg")])  # fmt: skip
    telemetry = FakeTelemetry()
    tools = FakeToolServer("box", {"think": lambda thought: thought})
    resumed = Orchestrator(profile=ZORK1, game=FakeGameEnv(), episode_id="e", max_turns=3,
                           telemetry=telemetry,
                           agent=agent_for(llm, telemetry=telemetry, tool_server=tools),
                           checkpoints=FileCheckpoints(tmp_path), resume=True)  # fmt: skip
    summary = resumed.run()
    assert summary.turns == 3 and summary.end_reason == "game_over"
    loop_turns = {e.fields["turn"] for e in telemetry.events if "iteration" in e.fields}
    span_turns = {s.metadata["turn"] for s in telemetry.spans if "turn" in s.metadata}
    completed = [e.fields["turn"] for e in telemetry.of_type("turn_complete")]
    assert loop_turns == span_turns == {3} and completed == [3]
    assert [t.turn for t in resumed.state.turns] == [1, 2, 3]


def test_a_resumed_episode_counts_the_time_of_the_run_it_resumed(tmp_path):
    """An extended episode's seconds are the whole episode's, not the extension's alone."""
    ticks = iter(range(0, 1000, 5))

    def clock() -> float:
        return float(next(ticks))

    def run(llm, *, resume: bool, max_turns: int) -> Orchestrator:
        return Orchestrator(profile=ZORK1, game=FakeGameEnv(), agent=agent_for(llm),
                            telemetry=FakeTelemetry(),
                            episode_id="e", max_turns=max_turns, clock=clock, resume=resume,
                            checkpoints=FileCheckpoints(tmp_path))  # fmt: skip

    first = run(ScriptedLLM([action_reply("north"), action_reply("east")]), resume=False,
                max_turns=2).run()  # fmt: skip
    saved = FileCheckpoints(tmp_path).load().summary.seconds
    assert 0 < saved <= first.seconds
    rest = run(ScriptedLLM([action_reply("take egg")]), resume=True, max_turns=3).run()
    assert rest.seconds > first.seconds and rest.turns == 3
