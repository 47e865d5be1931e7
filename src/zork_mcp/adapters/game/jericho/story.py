"""Where the story file is, and what its bytes say about how the game reads commands."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.game.story_file import DEFAULT_GAME, GameLexicon, read_lexicon

GAME_ENV_VAR = "ZORK_MCP_GAME"


def load_lexicon(game_file: Path) -> GameLexicon:
    """The game's dictionary, separators and input limit, read from the story file."""
    try:
        story = Path(game_file).read_bytes()
    except OSError as e:
        raise ConfigurationError(f"The game file cannot be read: {game_file} ({e})") from e
    return read_lexicon(story)


def find_game_file(
    explicit: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    configured: str | os.PathLike[str] | None = None,
    base: Path | None = None,
) -> Path:
    """--game, then $ZORK_MCP_GAME, then the config, then ../shared/games/zork1.z3."""
    env = os.environ if environ is None else environ
    root = base or Path.cwd()
    candidates = [
        ("--game", explicit),
        (GAME_ENV_VAR, env.get(GAME_ENV_VAR)),
        ("the config", configured),
        ("the default", root / DEFAULT_GAME),
    ]
    for source, value in candidates:
        if not value:
            continue
        path = Path(value).expanduser()
        path = path if path.is_absolute() else root / path
        if path.is_file():
            return path
        if source != "the default":
            raise ConfigurationError(f"The game file from {source} does not exist: {path}")
    raise ConfigurationError(
        "No Zork I story file was found (looked for --game, $ZORK_MCP_GAME and "
        f"{(root / DEFAULT_GAME).resolve()}).\n"
        "Zork I is free: Microsoft released its source under the MIT licence; the compiled "
        "story file is COMPILED/zork1.z3 in the historicalsource/zork1 repository on GitHub.\n"
        f"Download it, then pass --game /path/to/zork1.z3 or set {GAME_ENV_VAR}."
    )
