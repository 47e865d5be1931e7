"""One episode of a sweep, played through the same container and orchestrator as a single run."""

from __future__ import annotations

import contextlib
import shutil
import signal
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dependency_injector import providers

from zork_mcp.app import bootstrap
from zork_mcp.app.container import Container
from zork_mcp.app.orchestrator import TurnReport
from zork_mcp.builders.settings import RunOptions, chosen_servers, run_options
from zork_mcp.domain.episode.episode import EndReason, EpisodeSummary
from zork_mcp.domain.episode.episode_state import EpisodeState
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.errors import ZorkMcpError
from zork_mcp.domain.facts.activity import Activity
from zork_mcp.domain.facts.episode_facts import TurnCompleted
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.llm.messages import RetryStats
from zork_mcp.domain.sweep.cell_setup import setup_words
from zork_mcp.domain.sweep.controls import EpisodeControls, EpisodeInterrupted
from zork_mcp.domain.sweep.episodes import SWEEP_SWITCHES, EpisodeTask, McpConfigFile, McpMode
from zork_mcp.domain.sweep.records import EpisodeRecord, EpisodeStatus, play_metrics


class TrajectoryRecorder:
    """The orchestrator's progress observer: the facts of every turn."""

    def __init__(self) -> None:
        self.points: list[TurnFacts] = []
        self.mcp_disabled = False

    def begin(self, state: EpisodeState) -> None:
        pass  # a resumed episode's earlier turns are read from its log

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None:
        self.points.append(report.facts)
        self.mcp_disabled = report.mcp_disabled


def episode_options(task: EpisodeTask, *, fork_game: bool = False) -> RunOptions:
    """The options of the task's episode, as its cell and the sweep say."""
    cell = task.spec.cell
    mcp_config = Path(cell.mcp.path) if isinstance(cell.mcp, McpConfigFile) else None
    return run_options(
        model=cell.model.model,
        base_url=cell.model.base_url,
        game=task.game_played,
        max_score=task.max_score,
        seed=task.spec.seed,
        max_turns=task.spec.max_turns,
        config=task.config,
        mcp_config=mcp_config,
        mcp=cell.mcp is not McpMode.OFF,
        mcp_switches=SWEEP_SWITCHES,
        history=cell.history,
        budget=task.budget or Budget(),  # the sweep's allowance; the pyproject's is the sweep's
        log_dir=task.log_root,
        episode_id=task.spec.episode_id,
        plain=True,
        trust_pickle=task.trust_pickle,
        fork_game=fork_game,
    )


def play_episode(task: EpisodeTask, controls: EpisodeControls | None = None) -> EpisodeRecord:
    """Play the episode (from a fresh log folder, or on from its checkpoint with resume);
    a failure is a record, Ctrl-C (or `controls.interrupt()`) is raised."""
    shared = controls is not None and controls.shared
    options = episode_options(task, fork_game=shared)
    directory = options.episode_dir
    checkpoint = bootstrap.checkpoints(directory, task.trust_pickle)
    earlier: list[TurnFacts] = []
    if task.resume and checkpoint.exists():
        options = replace(options, resume=True)
        earlier = played_turns(directory, checkpoint.load().turn)
    else:
        shutil.rmtree(directory, ignore_errors=True)
    container = Container(options=options, project=task.project)
    if shared:
        _share_the_workers_fork_server(container)
    recorder = TrajectoryRecorder()
    recorder.points.extend(earlier)
    container.progress.override(providers.Object(recorder))
    activity = bootstrap.activity_file(directory)  # for the sweep's live panel
    container.activity().listen(_quietly(activity.write))
    orchestrator, error = None, None
    try:
        orchestrator = container.orchestrator()
        if controls is not None:
            controls.attach(container.agent())
        orchestrator.run()
    except ZorkMcpError as e:
        error = f"{type(e).__name__}: {e}"
    except Exception as e:  # a sweep records any failure of one episode and goes on
        error = f"unexpected {type(e).__name__}: {e}"
    finally:
        _shutdown(container)
        activity.remove()
    summary = orchestrator.summary if orchestrator is not None else None
    error = error or getattr(summary, "error", None)  # an episode the orchestrator ended on error
    if summary is not None and summary.end_reason is EndReason.INTERRUPTED:
        raise EpisodeInterrupted(task.spec.key)
    setup = episode_setup(container)
    record = _record(task, options, summary, recorder, error, container.llm_stats(), setup)
    return replace(record, **episode_game(container, task))


def _quietly(write: Callable[[Activity | None], None]) -> Callable[[Activity | None], None]:
    """`write` of the episode's activity, whose failure (a full disk, a folder another
    process changed) is never the episode's: the live panel it is for shows less."""

    def told(activity: Activity | None) -> None:
        with contextlib.suppress(OSError, ZorkMcpError):
            write(activity)

    return told


def episode_setup(container: Container) -> str | None:
    """The set-up the episode was played with, in words, as its container resolved it (the
    history policy, the MCP config file, its servers and their tool filters); None if its
    settings do not resolve (the episode's error says why)."""
    try:
        settings, config = container.settings(), container.mcp_config()
        if config is None:
            return setup_words(container.history(), None, {})
        name = (container.options().mcp_config or Path(settings.config_file)).name
        return setup_words(container.history(), name, chosen_servers(config, settings))
    except ZorkMcpError:
        return None


def episode_game(container: Container, task: EpisodeTask) -> dict[str, Any]:
    """The game the episode was played in, as its container resolved it: its key and most
    points; where its settings do not resolve (the episode's error says why), the game as
    the sweep wrote it."""
    try:
        profile = container.profile()
    except (ZorkMcpError, OSError):
        return {"game": task.game_played or "", "max_score": task.max_score}
    return {"game": profile.key, "max_score": profile.max_score}


def _share_the_workers_fork_server(container: Container) -> None:
    """The process's fork server instead of one per episode, waited for once by all."""
    container.start_plan.override(
        providers.Singleton(bootstrap.shared_start_plan, container.settings, container.mcp_config)
    )


def played_turns(directory: Path, through: int) -> list[TurnFacts]:
    """The trajectory up to a checkpoint, from the episode's events log."""
    points = {}
    for event in bootstrap.episode_events(directory):
        played = event.payload
        if isinstance(played, TurnCompleted) and played.facts.turn <= through:
            points[played.facts.turn] = played.facts
    return [points[turn] for turn in sorted(points)]


def _shutdown(container: Container) -> None:
    """Close the episode's resources; a second Ctrl-C must not cut this short (in a worker's
    thread no signal arrives: the worker's main thread takes them)."""
    if threading.current_thread() is not threading.main_thread():
        container.shutdown_resources()
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        container.shutdown_resources()
    finally:
        signal.signal(signal.SIGINT, previous)


def _record(
    task: EpisodeTask,
    options: RunOptions,
    summary: EpisodeSummary | None,
    recorder: TrajectoryRecorder,
    error: str | None,
    stats: RetryStats,
    setup: str | None,
) -> EpisodeRecord:
    """The episode's row, field by field: its play from the recorder, its totals from the
    summary (none when it failed before it began: an error record)."""
    turns = recorder.points
    played = play_metrics(turns)
    record = task.spec.record(
        status=EpisodeStatus.FAILED if error else EpisodeStatus.DONE,
        error=error,
        setup=setup,
        log_dir=str(options.episode_dir),
        trajectory=tuple(turns),
        tool_errors=sum(turn.tool_errors for turn in turns),
        max_turns=task.spec.max_turns,
        extended_from=task.extends if options.resume else None,
        best_score=played.best_score,
        deaths=played.deaths,
        invalid_commands=played.invalid_commands,
        rooms_visited=played.rooms_visited,
        repeated_commands=played.repeated_commands,
        unreadable_replies=played.unreadable_replies,
        end_reason=EndReason.ERROR if summary is None else summary.end_reason.as_finished(),
    )
    if summary is None:
        return record
    usage, parts = summary.usage, summary.usage.cost_parts
    return replace(
        record,
        score=summary.score,
        moves=summary.moves,
        turns=summary.turns,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cached_tokens=usage.cached_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost_usd=usage.cost_usd,
        cost_input_usd=parts.input if parts else None,
        cost_cached_input_usd=parts.cached_input if parts else None,
        cost_cache_write_usd=parts.cache_write if parts else None,
        cost_output_usd=parts.output if parts else None,
        unpriced=usage.unpriced,
        tool_calls=summary.tool_calls,
        mcp_disabled=recorder.mcp_disabled,
        rate_limited=stats.rate_limited,
        llm_retries=stats.retries,
        seconds=round(summary.seconds, 3),
    )
