"""The folders our MCP client names to its servers (MCP roots): an episode's log folder, where
its memory server finds the episode's journal. A root travels as a `file://` URI: `Root.uri`
writes one and `folder_of` reads one back."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit


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


def episode_root(folder: PurePosixPath, episode_id: str) -> Root:
    """The root that names an episode's log folder (absolute) to its servers."""
    return Root(PurePosixPath(folder), f"zork-mcp episode {episode_id}")


def folder_of(uri: str) -> PurePosixPath | None:
    """The local folder a `file://` URI names; None for any other URI."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = unquote(parts.path)
    return PurePosixPath(path) if path.startswith("/") else None
