"""An MCP root our client names to a server: a folder its entry asks for (its own folder in
the episode, or folders the user lists; domain/servers/server_places.py). A root travels as
a `file://` URI; roots are guidance to a server, not access control (MCP 2026-07-28): what a
server may reach is its confinement's to say."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Root:
    """An absolute folder and the name a server may show for it."""

    folder: PurePosixPath
    name: str

    def __post_init__(self) -> None:
        if not self.folder.is_absolute():
            raise ValueError(f"an MCP root is an absolute folder, not {self.folder}")

    @property
    def uri(self) -> str:
        return self.folder.as_uri()
