"""Where each MCP server of an episode may keep its state: a folder of its own beneath the
episode's (`servers/<name>/`), kept across its fresh per-turn processes, `--resume` and a
sweep's extensions, and the one folder of the episode it may write. The agent's own files
(checkpoint, events, journal, logs) sit beside, where no server writes.

An entry names its places with placeholders in its `args` and `env` values, filled per
episode (so one entry serves every episode of a sweep): `${ZORK_MCP_SERVER_DIR}` is its
folder (also in its environment, always), `${ZORK_MCP_JOURNAL}` the episode's journal, which
an entry that names it may read and not change. And it is named roots only where it asks:
`"roots": true` names its folder, a list names those folders.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.servers.roots import Root
from zork_mcp.domain.servers.server_config import (
    AnyServerConfig,
    MCPHttpServerConfig,
    MCPServerConfig,
)

SERVER_DIR = "ZORK_MCP_SERVER_DIR"
JOURNAL = "ZORK_MCP_JOURNAL"
SERVERS_FOLDER = "servers"
JOURNAL_FILE = "journal.jsonl"
PLACEHOLDERS = (SERVER_DIR, JOURNAL)
NOTES_TOOL = "add_note"  # the memory server's tool that writes the agent's notes
_FOLDER_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class EpisodePlaces:
    """An episode's absolute folder, and the home folder that `~/` in a root stands for."""

    episode: PurePosixPath
    home: PurePosixPath

    def __post_init__(self) -> None:
        if not self.episode.is_absolute() or not self.home.is_absolute():
            raise ValueError("an episode's places are absolute folders")

    @property
    def journal(self) -> PurePosixPath:
        return self.episode / JOURNAL_FILE

    def server_folder(self, server: str) -> PurePosixPath:
        return self.episode / SERVERS_FOLDER / folder_name(server)


def folder_name(server: str) -> str:
    """A server's name as a folder name: as it is when it is a plain one, else its plain
    characters, `+` and a hash of the whole. No plain name has a `+`, so a plain name is
    never another's hashed one (`a/b` and `a_b+...` are apart), and two hashed names share
    a folder only if their 80-bit hashes do."""
    if _FOLDER_NAME.fullmatch(server) and len(server) <= 64:
        return server
    plain = re.sub(r"[^A-Za-z0-9_-]", "_", server)[:40]
    return f"{plain}+{hashlib.sha256(server.encode()).hexdigest()[:20]}"


def uses_journal(config: AnyServerConfig) -> bool:
    """Whether the entry names the episode's journal (`${ZORK_MCP_JOURNAL}`)."""
    if not isinstance(config, MCPServerConfig):
        return False
    words = [*config.args, *(config.env or {}).values()]
    return any(f"${{{JOURNAL}}}" in word for word in words)


def notes_keeper(servers: Mapping[str, AnyServerConfig]) -> str | None:
    """The server whose folder holds the agent's notes: the one that reads the episode's
    journal and offers the notes tool (`add_note`, not filtered out); None when none does.
    Two would keep two sets of notes, while each turn's message shows one: refused."""
    keepers = [
        name
        for name, config in servers.items()
        if uses_journal(config) and config.tool_filter.allows(NOTES_TOOL)
    ]
    if len(keepers) > 1:
        names = f"{', '.join(keepers[:-1])} and {keepers[-1]}"
        raise MCPConfigError(
            f"The servers {names} each read the episode's journal and offer {NOTES_TOOL}, "
            f"but each turn shows the notes of one: filter {NOTES_TOOL} out of all but one "
            f'("excludeTools": ["{NOTES_TOOL}"] in their entries).'
        )
    return keepers[0] if keepers else None


def placed(server: str, config: AnyServerConfig, places: EpisodePlaces) -> AnyServerConfig:
    """The entry for this episode: its placeholders filled, its folder in its environment
    and, when confined, the one folder of the episode it may write (with its roots, which
    it was given), and the journal readable when it names it."""
    folder = places.server_folder(server)
    roots = root_folders(config, folder, places.home)
    if isinstance(config, MCPHttpServerConfig):
        return config.model_copy(update={"roots": roots})
    values = {SERVER_DIR: str(folder), JOURNAL: str(places.journal)}
    env = {name: _filled(value, values) for name, value in (config.env or {}).items()}
    update: dict[str, object] = {
        "args": tuple(_filled(arg, values) for arg in config.args),
        "env": {SERVER_DIR: str(folder), **env},
        "roots": roots,
    }
    if config.sandbox is not None:
        read = (str(places.journal),) if uses_journal(config) else ()
        update["sandbox"] = config.sandbox.model_copy(
            update={
                "write": tuple(dict.fromkeys((*config.sandbox.write, str(folder), *roots))),
                "read": (*config.sandbox.read, *read),
            }
        )
    return config.model_copy(update=update)


def placed_servers(
    servers: Mapping[str, AnyServerConfig], places: EpisodePlaces
) -> dict[str, AnyServerConfig]:
    return {name: placed(name, config, places) for name, config in servers.items()}


def root_folders(
    config: AnyServerConfig, folder: PurePosixPath, home: PurePosixPath
) -> tuple[str, ...]:
    """The folders the entry asks to be named as roots: none, its own, or those it lists."""
    if config.roots is True:
        return (str(folder),)
    if config.roots is False:
        return ()
    return tuple(str(home / path[2:]) if path.startswith("~/") else path for path in config.roots)


def roots_of(config: AnyServerConfig) -> tuple[Root, ...]:
    """The roots a placed entry is named (an entry not placed for an episode, as MCP-Ghost
    uses it, is named only the folders it lists)."""
    if isinstance(config.roots, bool):
        return ()
    folders = (PurePosixPath(path) for path in config.roots)
    return tuple(Root(folder, folder.name) for folder in folders if folder.is_absolute())


def _filled(value: str, values: Mapping[str, str]) -> str:
    for name, filled in values.items():
        value = value.replace(f"${{{name}}}", filled)
    return value
