"""MCP's two eras: the handshake (`initialize`, a session) and the stateless one (2026-07-28:
`server/discover`, the version and capabilities in every request's `_meta`).

A server is spoken to in the newest era it supports unless its config entry pins a version
(`"protocol": "2025-11-25"`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# The SDK's own lists (mcp_types.version), oldest first; a contract test keeps them equal.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
VERSIONS = HANDSHAKE_VERSIONS + MODERN_VERSIONS
LATEST_VERSION = VERSIONS[-1]


class Era(StrEnum):
    HANDSHAKE = "handshake"
    MODERN = "modern"


def era_of(version: str) -> Era:
    if version in MODERN_VERSIONS:
        return Era.MODERN
    if version in HANDSHAKE_VERSIONS:
        return Era.HANDSHAKE
    raise ValueError(f"unknown MCP protocol version {version!r}; known: {', '.join(VERSIONS)}")


def checked_pin(version: str) -> str:
    """A config entry's `"protocol"`, refused with the versions it may name."""
    if version not in VERSIONS:
        raise ValueError(
            f'"protocol" {version!r} is not an MCP version this client speaks: use one of '
            f"{', '.join(VERSIONS)}, or leave it out to speak the newest the server supports"
        )
    return version


@dataclass(frozen=True)
class ServerProtocol:
    """The version a server is spoken to in; said once an episode (a notice, by its key)."""

    server: str
    version: str

    @property
    def era(self) -> Era:
        return era_of(self.version)

    @property
    def key(self) -> str:
        return f"protocol\0{self.server}\0{self.version}"
