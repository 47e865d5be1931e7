"""Which era each server is spoken to in: found once, then remembered for the tool server's
life (an episode), so a later turn's fresh session sends no probe.

Unpinned, the first session asks as the SDK's `Client(mode="auto")` does: `server/discover`,
and the `initialize` handshake wherever that is not positive evidence of a modern server.
A modern server's DiscoverResult is then adopted by every later session without a round
trip; a handshake-only server gets `initialize` at once. A pinned modern version is adopted
without a probe (the SDK's version pin); a pinned handshake version is proposed in
`initialize`. A server whose connect fails is probed afresh next time: it may have changed.
"""

from __future__ import annotations

from collections.abc import Mapping

import mcp.types as types

from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.sdk import negotiate_auto
from zork_mcp.domain.servers.protocol_era import Era, ServerProtocol, era_of


class Eras:
    """What each server was found to speak, by name; pins come from its config entry."""

    def __init__(self, pins: Mapping[str, str | None] | None = None) -> None:
        self._pins = {name: pin for name, pin in (pins or {}).items() if pin is not None}
        self._found: dict[str, types.DiscoverResult | str] = {}

    async def speak(self, name: str, session: ZorkClientSession) -> ServerProtocol:
        """Settle `session`'s era: what was found before, else the pin, else a probe."""
        found = self._found.get(name) or self._pinned(name)
        if isinstance(found, types.DiscoverResult):
            session.adopt(found)
        elif found is not None:
            await session.initialize_at(found)
        else:
            await negotiate_auto(session)
        self._found[name] = session.discover_result or _handshake_version(session)
        return ServerProtocol(name, session.protocol_version or "")

    def forget(self, name: str) -> None:
        self._found.pop(name, None)

    def _pinned(self, name: str) -> types.DiscoverResult | str | None:
        pin = self._pins.get(name)
        if pin is None or era_of(pin) is Era.HANDSHAKE:
            return pin
        return types.DiscoverResult(
            supported_versions=[pin],
            capabilities=types.ServerCapabilities(),
            result_type="complete",
            ttl_ms=0,
            cache_scope="public",
        )


def _handshake_version(session: ZorkClientSession) -> str:
    """The version to propose next time: the one this server agreed to."""
    result = session.initialize_result
    assert result is not None, "negotiation ends in discover or initialize"
    return result.protocol_version
