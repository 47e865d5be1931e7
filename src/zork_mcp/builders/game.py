"""The GameEnv port's builder: Jericho's game for the agent's episodes and for the text
adventure MCP server alike, from settings resolved once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zork_mcp.adapters.game.jericho import JerichoGameEnv, find_game_file
from zork_mcp.domain.facts.events import Event
from zork_mcp.ports.telemetry import Telemetry

if TYPE_CHECKING:
    from zork_mcp.builders.settings import RunOptions
    from zork_mcp.domain.settings import ProjectSettings

__all__ = ["GameSettings", "episode_game", "find_game_file", "game_env", "game_settings"]


@dataclass(frozen=True)
class GameSettings:
    """Which story file, which seed, and the rules a game is played by."""

    story_file: Path
    seed: int | None = 12
    allow_quit_restart: bool = False
    end_at_first_death: bool = False
    forked: bool = False  # fork game processes from a preloaded parent (a sweep worker)


def game_settings(options: RunOptions, project: ProjectSettings | None = None) -> GameSettings:
    """The CLI's (and a sweep episode's): --game, else $ZORK_MCP_GAME, else the pyproject's."""
    # Imported here: the text adventure server builds its game in this module too, and a
    # server start must not pay for the LLM registry the run's options bring (~0.3 s).
    from zork_mcp.builders.settings import end_at_first_death, project_settings

    project = project or project_settings(options)
    return GameSettings(
        find_game_file(options.game, configured=project.game),
        seed=options.seed,
        allow_quit_restart=options.allow_quit_restart,
        end_at_first_death=end_at_first_death(options, project),
        forked=options.fork_game,
    )


@contextmanager
def episode_game(telemetry: Telemetry, settings: GameSettings) -> Iterator[JerichoGameEnv]:
    """An episode's game, its events on the episode's telemetry; closed with the run."""
    env = game_env(settings, telemetry.emit)
    try:
        yield env
    finally:
        env.close()


def game_env(
    settings: GameSettings, on_event: Callable[[Event], None] | None = None
) -> JerichoGameEnv:
    """A game over Jericho; the caller closes it."""
    return JerichoGameEnv(
        settings.story_file,
        seed=settings.seed,
        allow_quit_restart=settings.allow_quit_restart,
        end_at_first_death=settings.end_at_first_death,
        on_event=on_event,
        forked=settings.forked,
    )
