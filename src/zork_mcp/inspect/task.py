"""The Inspect task: `inspect eval zork_mcp/zork --model openai/gpt-4o`. One sample per game
and seed (epochs replay it), each an episode scored by its game, its normalised score over
that game's own maximum."""

from __future__ import annotations

import asyncio
import math
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import transcript
from inspect_ai.model import get_model
from inspect_ai.scorer import Metric, Score, Scorer, Target, grouped, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from zork_mcp.builders.game import chosen_story
from zork_mcp.builders.settings import project_settings
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.game.seeds import checked_seeds
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.inspect.episode import EpisodeParameters, episode_container, play
from zork_mcp.inspect.record import EpisodeProgress, InspectEpisodeRecord

INPUT = "Play {game} from the start: one command a turn, MCP tools while you decide."
GAME_KEY = "game"  # the sample's metadata that names its game (what `grouped` groups by)


@dataclass(frozen=True)
class TaskGame:
    """A game of the task, resolved once where the task is made: as written (what each of its
    episodes is played with; None: the run's own) and its profile (what its score is over)."""

    written: str | None
    profile: GameProfile


@task
def zork(
    max_turns: int = 100,
    mcp_config: str | bool | None = None,
    mcp_servers: str | list[str] | None = None,
    history: str | None = None,
    history_turns: int | None = None,
    game: str | None = None,
    games: str | list[str] | None = None,
    max_score: int | None = None,
    seeds: int | list[int] = 12,
    config: str = "pyproject.toml",
    episode_logs: str | None = None,
) -> Task:
    """A Zork game played by our agent. `mcp_config`: the MCP servers' config file (default:
    no MCP); `mcp_servers`: which of its servers (comma-separated); `history`: window, full or
    state; `game`: zork1, zork2, zork3 or a story file's path; `games`: several of them
    (comma-separated, or a list), a sample per game and seed; `max_score`: an unknown story
    file's most points; `seeds`: one sample each; `config`: the pyproject with
    [tool.zorkgpt.mcp]; `episode_logs`: a folder to keep each episode's own logs in (default:
    a temporary one, removed after the sample)."""
    servers = mcp_servers.split(",") if isinstance(mcp_servers, str) else mcp_servers
    parameters = EpisodeParameters(
        max_turns=max_turns,
        mcp_config=mcp_config,
        mcp_servers=tuple(name.strip() for name in servers) if servers else None,
        history=history,
        history_turns=history_turns,
        max_score=max_score,
        config=config,
    )
    project = project_settings(Path(config))  # read once, for the task's every sample
    chosen = [task_game(written, max_score, project) for written in games_written(game, games)]
    seed_list = checked_seeds([seeds] if isinstance(seeds, int) else seeds, "-T seeds")
    return Task(
        dataset=MemoryDataset(
            samples(chosen, seed_list), name="+".join(g.profile.key for g in chosen)
        ),
        solver=play_episode(parameters, project, episode_logs),
        scorer=game_score(),
        metrics=per_game_metrics() if len(chosen) > 1 else None,
    )


def games_written(game: str | None, games: str | list[str] | None) -> list[str | None]:
    """The task's games as written, each once: `game` (one) or `games` (several, a comma
    list or a list), else the run's own (None)."""
    if game is not None and games is not None:
        raise ConfigurationError(
            "Give the task's game with -T game=zork2 or its games with -T games=zork1,zork2, "
            "not both."
        )
    listed = games.split(",") if isinstance(games, str) else games or []
    written = [str(g).strip() for g in listed if str(g).strip()]
    if games is not None and not written:
        raise ConfigurationError("-T games needs at least one game, e.g. -T games=zork1,zork2.")
    return list(dict.fromkeys(written)) or [game]


def task_game(written: str | None, max_score: int | None, project: ProjectSettings) -> TaskGame:
    """The game as `zork-mcp --game` resolves it (else $ZORK_MCP_GAME, the config's, Zork
    I); an unknown one's maximum from `max_score`, else the config's."""
    return TaskGame(written, chosen_story(written, max_score, project).profile)


def samples(games: Sequence[TaskGame], seeds: Sequence[int]) -> list[Sample]:
    """A sample per game and seed; a one-game task's ids are its seeds' (`seed-12`), as they
    were before tasks had games; several games' are `zork2-seed-12`."""
    several = len(games) > 1
    return [
        Sample(
            id=f"{game.profile.key}-seed-{seed}" if several else f"seed-{seed}",
            input=INPUT.format(game=game.profile.name),
            metadata={
                "seed": seed,
                GAME_KEY: game.profile.key,
                "played": game.written,
                "max_score": game.profile.max_score,
            },
        )
        for game in games
        for seed in seeds
    ]


@solver
def play_episode(
    parameters: EpisodeParameters, project: ProjectSettings, episode_logs: str | None = None
) -> Solver:
    """One episode of the sample's game and seed, through our orchestrator; the model is the
    eval's, the settings the task's pyproject's."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model, loop = get_model(), asyncio.get_running_loop()
        progress = state.store_as(EpisodeProgress)
        record = InspectEpisodeRecord(progress, transcript(), loop)
        episode_id = f"{state.sample_id}-epoch{state.epoch}-{state.uuid[:8]}"
        with episode_folder(episode_logs) as folder:
            options = parameters.run_options(
                model,
                game=state.metadata["played"],
                seed=state.metadata["seed"],
                log_dir=folder,
                episode_id=episode_id,
            )
            try:
                container = episode_container(options, project, model, record, loop)
                await play(container, record)
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


def per_game_metrics() -> dict[str, list[Metric]]:
    """A task over several games: each value's mean over every sample, and per game (by the
    sample's game); only `normalised` pools games on one scale."""
    return {
        "final": [mean(), stderr(), grouped(mean(), GAME_KEY, all=False)],
        "best": [mean(), grouped(mean(), GAME_KEY, all=False)],
        "normalised": [mean(), grouped(mean(), GAME_KEY, all=False)],
    }


@scorer(metrics={"final": [mean(), stderr()], "best": [mean()], "normalised": [mean()]})
def game_score() -> Scorer:
    """The game's score at the end, the best it reached, and the end's share of the sample's
    game's most points (NaN where that maximum is not known)."""

    async def score(state: TaskState, target: Target) -> Score:
        played = state.store_as(EpisodeProgress)
        most = state.metadata["max_score"]
        return Score(
            value={
                "final": played.score,
                "best": played.best,
                "normalised": played.score / most if most else math.nan,
            },
            answer=played.end_reason,
            explanation=(
                f"score {played.score} of {most or 'an unknown maximum'} in "
                f"{state.metadata[GAME_KEY]} (best {played.best}) after {played.turns} turns "
                f"and {played.moves} moves; ended: {played.end_reason}"
            ),
            metadata={
                "turns": played.turns,
                "tool_calls": played.tool_calls,
                "unreadable_replies": played.unreadable_replies,
                "error": played.error,
            },
        )

    return score
