"""The GameEnv port's builder: Jericho's game for the agent's episodes and for the text
adventure MCP server alike, from settings resolved once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zork_mcp.adapters.game.jericho import JerichoGameEnv, Story, find_game_file, find_story
from zork_mcp.domain.facts.events import Event
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.game.seeds import checked_seeds
from zork_mcp.ports.telemetry import Telemetry

if TYPE_CHECKING:
    from zork_mcp.builders.settings import RunOptions
    from zork_mcp.domain.settings import ProjectSettings

__all__ = [
    "GameSettings",
    "Story",
    "chosen_story",
    "episode_game",
    "find_game_file",
    "find_story",
    "game_env",
    "game_settings",
]


@dataclass(frozen=True)
class GameSettings:
    """Which story file and game, which seed, and the rules a game is played by."""

    story: Story
    seed: int | None = 12
    allow_quit_restart: bool = False
    end_at_first_death: bool = False
    forked: bool = False  # fork game processes from a preloaded parent (a sweep worker)

    def __post_init__(self) -> None:
        if self.seed is not None:
            checked_seeds([self.seed], "the game's seed")

    @property
    def story_file(self) -> Path:
        return self.story.path

    @property
    def profile(self) -> GameProfile:
        return self.story.profile


def game_settings(options: RunOptions, project: ProjectSettings) -> GameSettings:
    """The CLI's (and a sweep episode's): --game, else $ZORK_MCP_GAME, else the pyproject's,
    else Zork I; an unknown game's maximum from --max-score, else the pyproject's."""
    # Imported here: the text adventure server builds its game in this module too, and a
    # server start must not pay for the LLM registry the run's options bring (~0.3 s).
    from zork_mcp.builders.settings import end_at_first_death

    return GameSettings(
        chosen_story(options.game, options.max_score, project),
        seed=options.seed,
        allow_quit_restart=options.allow_quit_restart,
        end_at_first_death=end_at_first_death(options, project),
        forked=options.fork_game,
    )


def chosen_story(game: str | None, max_score: int | None, project: ProjectSettings) -> Story:
    """`game` (a name or a story file's path), else $ZORK_MCP_GAME, else the pyproject's, else
    Zork I; an unknown game's maximum from `max_score`, else the pyproject's."""
    return find_story(game, configured=project.game, max_score=max_score or project.max_score)


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
        final_words=settings.profile.final_words,
        lexicon=settings.story.lexicon,
    )
