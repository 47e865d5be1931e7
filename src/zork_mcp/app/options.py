"""What one run is asked to do: the command line, resolved into one object."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROVIDERS = ("openrouter", "openai", "anthropic", "gemini", "local")
# Current, cheap, tool-capable models, checked against each provider's model and
# deprecation pages on 2026-11-23 (README: "Default models").
DEFAULT_MODELS = {
    "openrouter": "anthropic/claude-haiku-5.5",
    "openai": "gpt-6-luna",
    "anthropic": "claude-haiku-5-5",
    "gemini": "gemini-3.5-flash-lite",
    "local": "local-model",
}
KEY_VARIABLES = {
    "openrouter": ("OPENROUTER_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "local": ("LOCAL_LLM_API_KEY",),
}


@dataclass(frozen=True)
class RunOptions:
    provider: str = "openrouter"
    model: str | None = None
    base_url: str | None = None
    game: str | None = None
    max_turns: int = 100
    config: Path = Path("pyproject.toml")
    mcp_config: Path | None = None
    mcp: bool | None = None  # None: as the pyproject says
    log_dir: Path = Path("logs")
    seed: int = 12
    episode_id: str = "episode"
    plain: bool = False
    allow_quit_restart: bool = False
    resume: bool = False  # continue the episode from its last checkpoint

    @property
    def model_name(self) -> str:
        return self.model or DEFAULT_MODELS[self.provider]
