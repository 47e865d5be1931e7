"""Per-turn checkpoints: the orchestrator saves one after every turn, and a resumed episode
continues with the same game state, objective, recent actions and totals."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest

from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.storage.checkpoint_file import FileCheckpoints
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.errors import ConfigurationError, LLMError
from zork_mcp.domain.settings import MCPSettings


def orchestrator(llm, directory, *, resume=False, max_turns=10) -> Orchestrator:
    @asynccontextmanager
    async def session():
        yield llm

    telemetry = FakeTelemetry()
    agent = ZorkAgent(llm_session=session, settings=MCPSettings(), telemetry=telemetry,
                      system_prompt="sys")  # fmt: skip
    return Orchestrator(game=FakeGameEnv(), agent=agent, telemetry=telemetry, episode_id="e",
                        max_turns=max_turns, checkpoints=FileCheckpoints(directory),
                        resume=resume)  # fmt: skip


def test_an_episode_broken_by_an_error_resumes_where_it_stopped(tmp_path):
    broken = ScriptedLLM([action_reply("north", new_objective="find the egg"),
                          LLMError("provider down")])  # fmt: skip
    with pytest.raises(LLMError):
        orchestrator(broken, tmp_path).run()
    saved = FileCheckpoints(tmp_path).load()
    assert (saved.turn, saved.objective, [a for a, _ in saved.recent]) == (
        1,
        "find the egg",
        ["north"],
    )
    rest = ScriptedLLM([action_reply("east"), action_reply("take egg")])
    summary = orchestrator(rest, tmp_path, resume=True).run()
    assert (summary.turns, summary.score, summary.end_reason) == (3, 10, "game_over")
    assert summary.room == "Behind House" and summary.usage.prompt_tokens == 30
    state = rest.requests[0].messages[-1]["content"]
    assert "Current objective: find the egg" in state and "> north ->" in state


def test_resuming_without_a_checkpoint_says_what_to_do(tmp_path):
    with pytest.raises(ConfigurationError, match="Nothing to resume"):
        orchestrator(ScriptedLLM([]), tmp_path, resume=True).run()
    (tmp_path / "checkpoint.pickle").write_bytes(b"not a pickle")
    with pytest.raises(ConfigurationError, match="not a readable checkpoint"):
        orchestrator(ScriptedLLM([]), tmp_path, resume=True).run()
