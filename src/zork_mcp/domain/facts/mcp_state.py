"""What a run's start says of MCP: on, with which servers from which config, or off and why;
each with the option that changes it, so MCP is never off in silence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zork_mcp.domain.facts.events import Event, EventType, Level
from zork_mcp.domain.text.inert import inert

TURN_ON = (
    "--mcp, or --config naming a pyproject with [tool.zorkgpt.mcp] enabled = true, turns it on"
)
TURN_OFF = "--no-mcp to play without them"


@dataclass(frozen=True)
class McpState:
    """`servers`: the run's (none: MCP off, or on with every server of `config`); `config`:
    the MCP config they come from ("" when not known); `off_because`: why MCP is off."""

    enabled: bool
    servers: tuple[str, ...] = ()
    config: str = ""
    off_because: str = ""

    def line(self) -> str:
        if not self.enabled:
            why = f": {inert(self.off_because)}" if self.off_because else ""
            return f"MCP off{why}; {TURN_ON}"
        source = f" from {inert(self.config)}" if self.config else ""
        if not self.servers:
            return f"MCP on: every server{source}; {TURN_OFF}"
        plural = "s" if len(self.servers) > 1 else ""
        return f"MCP on: server{plural} {inert(', '.join(self.servers))}{source}; {TURN_OFF}"

    @classmethod
    def of_servers(cls, servers: tuple[str, ...]) -> McpState:
        """As far as the episode's own servers tell: on with them, or off."""
        return cls(bool(servers), servers)

    def event(self) -> Event:
        return Event(EventType.MCP_STATE, self.line(), Level.INFO, self.fields())

    def fields(self) -> dict[str, Any]:
        return {
            "mcp_enabled": self.enabled,
            "servers": list(self.servers),
            "mcp_config": self.config,
            "off_because": self.off_because,
        }

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> McpState:
        """As its event's line wrote it (what the line lacks reads as unsaid)."""
        return cls(
            bool(values.get("mcp_enabled")),
            tuple(values.get("servers") or ()),
            str(values.get("mcp_config") or ""),
            str(values.get("off_because") or ""),
        )
