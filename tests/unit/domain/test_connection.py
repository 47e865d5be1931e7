"""A server's connection state: a connect attempt where none is allowed is refused saying why."""

from __future__ import annotations

import pytest

from zork_mcp.domain.errors import MCPError
from zork_mcp.domain.servers.connection import ConnectionState, ConnectionTracker, ConnectResult


def test_a_connect_on_a_disabled_server_is_refused_saying_mcp_is_off():
    tracker = ConnectionTracker(ConnectionState.DISABLED)
    with pytest.raises(MCPError) as caught:
        tracker.record(ConnectResult.SUCCEEDED)
    assert str(caught.value) == (
        "no connect attempt is allowed in state disabled: MCP is off for this episode"
    )
    assert tracker.state is ConnectionState.DISABLED
