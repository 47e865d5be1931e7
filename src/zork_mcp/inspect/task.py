"""The Inspect task: `inspect eval zork_mcp/zork --model openai/gpt-4o`. One sample per seed
(epochs replay it), each an episode of Zork I scored by the game."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import transcript
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from zork_mcp.domain.game.profile import ZORK1
from zork_mcp.inspect.episode import EpisodeParameters, episode_container, play
from zork_mcp.inspect.record import EpisodeProgress, InspectEpisodeRecord

INPUT = "Play Zork I from the start: one command a turn, MCP tools while you decide."


@task
def zork(
    max_turns: int = 100,
    mcp_config: str | bool | None = None,
    mcp_servers: str | list[str] | None = None,
    history: str | None = None,
    history_turns: int | None = None,
    game: str | None = None,
    seeds: int | list[int] = 12,
    config: str = "pyproject.toml",
    episode_logs: str | None = None,
) -> Task:
    """Zork I played by our agent. `mcp_config`: the MCP servers' config file (default: no
    MCP); `mcp_servers`: which of its servers (comma-separated); `history`: window, full or
    state; `game`: the story file; `seeds`: one sample each; `config`: the pyproject with
    [tool.zorkgpt.mcp]; `episode_logs`: a folder to keep each episode's own logs in (default:
    a temporary one, removed after the sample)."""
    servers = mcp_servers.split(",") if isinstance(mcp_servers, str) else mcp_servers
    parameters = EpisodeParameters(
        max_turns=max_turns,
        mcp_config=mcp_config,
        mcp_servers=tuple(name.strip() for name in servers) if servers else None,
        history=history,
        history_turns=history_turns,
        game=game,
        config=config,
    )
    seed_list = [seeds] if isinstance(seeds, int) else list(seeds)
    samples = [Sample(id=f"seed-{s}", input=INPUT, metadata={"seed": s}) for s in seed_list]
    return Task(
        dataset=MemoryDataset(samples, name="zork1"),
        solver=play_episode(parameters, episode_logs),
        scorer=game_score(),
    )


@solver
def play_episode(parameters: EpisodeParameters, episode_logs: str | None = None) -> Solver:
    """One episode of the sample's seed, through our orchestrator; the model is the eval's."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model, loop = get_model(), asyncio.get_running_loop()
        progress = state.store_as(EpisodeProgress)
        record = InspectEpisodeRecord(progress, transcript(), loop)
        episode_id = f"{state.sample_id}-epoch{state.epoch}-{state.uuid[:8]}"
        with episode_folder(episode_logs) as folder:
            options = parameters.run_options(
                model, seed=state.metadata["seed"], log_dir=folder, episode_id=episode_id
            )
            try:
                await play(episode_container(options, model, record, loop), record)
            except LimitExceededError as limit:
                progress.end_reason = f"{limit.type}_limit"
                raise
        return state

    return solve


@contextmanager
def episode_folder(keep_in: str | None) -> Iterator[Path]:
    if keep_in is not None:
        yield Path(keep_in)
        return
    folder = Path(tempfile.mkdtemp(prefix="zi"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@scorer(metrics={"final": [mean(), stderr()], "best": [mean()], "normalised": [mean()]})
def game_score() -> Scorer:
    """The game's score at the end, the best it reached, and the end's share of Zork I's 350."""

    async def score(state: TaskState, target: Target) -> Score:
        played = state.store_as(EpisodeProgress)
        return Score(
            value={
                "final": played.score,
                "best": played.best,
                "normalised": played.score / ZORK1.max_score,
            },
            answer=played.end_reason,
            explanation=(
                f"score {played.score} of {ZORK1.max_score} (best {played.best}) after "
                f"{played.turns} turns and {played.moves} moves; ended: {played.end_reason}"
            ),
            metadata={
                "turns": played.turns,
                "tool_calls": played.tool_calls,
                "error": played.error,
            },
        )

    return score
