"""The working directory's `.env`: where users keep provider keys (spec 004 lists dotenv).

Its variables only fill gaps: a variable already set in the environment always wins.
"""

from __future__ import annotations

import os
from pathlib import Path

from dotenv import dotenv_values

ENV_FILE = Path(".env")  # relative: the working directory's, when it is read


def env_file_values(path: Path = ENV_FILE) -> dict[str, str]:
    if not path.is_file():
        return {}
    return {name: value for name, value in dotenv_values(path).items() if value is not None}


def load_env_file(path: Path = ENV_FILE) -> tuple[str, ...]:
    """Set the file's variables that are not set yet; return their names (never values)."""
    added = {name: value for name, value in env_file_values(path).items() if name not in os.environ}
    os.environ.update(added)
    return tuple(added)


def environment_with_env_file(path: Path = ENV_FILE) -> dict[str, str]:
    """The environment as a run sees it, without changing it: the file's variables under it."""
    return {**env_file_values(path), **os.environ}
