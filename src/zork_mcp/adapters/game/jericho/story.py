"""Which story file a run plays and what game it is: a known game's name (the trilogy ships
in the package, `stories/`, each file checked against its hash), or a path to any story
file, refused before anything starts when it is not one Jericho can play. A file is known by
its hash, not its name: `--game ../shared/games/zork2.z3` is Zork II. Another file plays
with a generic profile, or with Jericho's own name and maximum where Jericho knows it."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.game.profile import GameProfile, generic_profile
from zork_mcp.domain.game.story_file import (
    MAX_STORY_BYTES,
    GameLexicon,
    StoryHeader,
    read_header,
    read_lexicon,
)
from zork_mcp.domain.game.trilogy import DEFAULT_GAME, KNOWN_GAMES

GAME_ENV_VAR = "ZORK_MCP_GAME"
PROBE_TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class Story:
    """A story file the run will play, what its header and dictionary say, and the game it
    is: read and judged once, here, for the game process and the command check alike."""

    path: Path
    header: StoryHeader
    lexicon: GameLexicon
    profile: GameProfile


def packaged_story(key: str) -> Path:
    """Where the package keeps a known game's story file."""
    return Path(str(files("zork_mcp.adapters.game") / "stories" / KNOWN_GAMES[key].story_file))


def load_lexicon(game_file: Path) -> GameLexicon:
    """The game's dictionary, separators and input limit, read from the story file."""
    return read_lexicon(read_story(Path(game_file)))


def read_story(path: Path) -> bytes:
    """A story file's bytes, read as a file anyone could have put there: a regular file,
    opened without blocking and without following a last link, and no more than a story
    file can hold."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise ConfigurationError(f"The game file cannot be read: {path} ({e.strerror})") from e
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigurationError(
                f"The game file {path} is not a regular file. Pass a story file with --game."
            )
        chunks, left = [], MAX_STORY_BYTES + 1
        while left and (chunk := os.read(fd, left)):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def find_story(
    explicit: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    configured: str | os.PathLike[str] | None = None,
    max_score: int | None = None,
    base: Path | None = None,
) -> Story:
    """--game, then $ZORK_MCP_GAME, then the config's `game`, then Zork I from the package.
    Each is a known game's name (zork1, zork2, zork3) or a story file's path (relative to
    `base`, the working folder). `max_score`: a generic game's maximum, from the user."""
    env = os.environ if environ is None else environ
    root = base or Path.cwd()
    candidates = (
        ("--game", explicit),
        (f"${GAME_ENV_VAR}", env.get(GAME_ENV_VAR)),
        ("the config's game", configured),
        ("the default", DEFAULT_GAME),
    )
    source, value = next((s, str(v)) for s, v in candidates if v)
    if value.lower() in KNOWN_GAMES:
        return _packaged(KNOWN_GAMES[value.lower()])
    path = Path(value).expanduser()
    path = path if path.is_absolute() else root / path
    if not path.exists():
        raise ConfigurationError(
            f"The game file from {source} does not exist: {path}. Pass a story file's path, "
            f"or a game's name: {', '.join(KNOWN_GAMES)}."
        )
    return story_at(path, max_score)


def story_at(path: Path, max_score: int | None = None) -> Story:
    """The story file at `path`, checked, with its game's profile."""
    story = read_story(path)
    header = read_header(story, str(path))
    lexicon = read_lexicon(story)  # its dictionary must read too: the command check needs it
    digest = hashlib.sha256(story).hexdigest()
    known = next((game for game in KNOWN_GAMES.values() if game.sha256 == digest), None)
    if known is not None:
        return Story(path, header, lexicon, known)
    jericho = _jericho_game(path, story)
    if jericho is not None:
        name, jericho_max = jericho
        profile = generic_profile(name, max_score or jericho_max or None)
        return Story(path, header, lexicon, profile)
    if not header.scored:
        why = (
            "a timed game's status line"
            if header.version == 3
            else (f"a version {header.version} game's status line, which the game draws itself")
        )
        raise ConfigurationError(
            f"{path} is a game Jericho does not know, and zork-mcp reads an unknown game's "
            f"score and moves from its status line: {why} shows none. Play a version 3 "
            "story file with a score, or one Jericho supports."
        )
    return Story(path, header, lexicon, generic_profile(path.stem, max_score))


def _packaged(game: GameProfile) -> Story:
    path = packaged_story(game.key)
    story = read_story(path)
    if hashlib.sha256(story).hexdigest() != game.sha256:
        raise ConfigurationError(
            f"The package's {game.name} story file ({path}) is not the file it shipped "
            f"(its sha256 differs): reinstall zork-mcp (pip install --force-reinstall zork-mcp)."
        )
    return Story(path, read_header(story, str(path)), read_lexicon(story), game)


def _jericho_game(path: Path, story: bytes) -> tuple[str, int] | None:
    """Jericho's name and maximum for a file it knows by hash, else None. Its table is read
    here; the maximum lives in its C library, asked in a process of its own."""
    from jericho.defines import BINDINGS_DICT

    bindings = BINDINGS_DICT.get(hashlib.md5(story).hexdigest())
    if not bindings:
        return None
    probe = "import sys, jericho; print(jericho.FrotzEnv(sys.argv[1]).get_max_score())"
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe, str(path)],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_SECONDS,
            check=True,
        )
        return str(bindings["name"]), int(done.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError) as e:
        raise ConfigurationError(
            f"Jericho knows {path} as {bindings['name']}, but could not load it ({e})."
        ) from e


def find_game_file(
    explicit: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    configured: str | os.PathLike[str] | None = None,
    base: Path | None = None,
) -> Path:
    """The path `find_story` finds (for a caller that needs only the file)."""
    return find_story(explicit, environ=environ, configured=configured, base=base).path
