"""What one run is asked to do: the command line, resolved into one object."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from zork_mcp.app.providers import DEFAULT_PROVIDER, PROVIDERS, OpenAIApi


@dataclass(frozen=True)
class RunOptions:
    provider: str = DEFAULT_PROVIDER
    model: str | None = None
    base_url: str | None = None
    openai_api: OpenAIApi | None = None  # None: the registry's choice for the model
    game: str | None = None
    max_turns: int = 100
    config: Path = Path("pyproject.toml")
    mcp_config: Path | None = None
    mcp: bool | None = None  # None: as the pyproject says
    mcp_servers: tuple[str, ...] | None = None  # None: as the pyproject says (default all)
    log_dir: Path = Path("logs")
    seed: int = 12
    episode_id: str = "episode"
    plain: bool = False
    allow_quit_restart: bool = False
    end_at_first_death: bool | None = None  # None: as the pyproject says (default: play on)
    resume: bool = False  # continue the episode from its last checkpoint
    fork_game: bool = False  # fork the game process from a preloaded parent (sweep workers)

    @property
    def model_name(self) -> str:
        return self.model or PROVIDERS[self.provider].default_model
