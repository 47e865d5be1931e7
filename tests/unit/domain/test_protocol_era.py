"""MCP's two eras as the domain names them, and a config entry's protocol pin (issue 38)."""

from __future__ import annotations

import pytest

from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.servers.protocol_era import Era, ServerProtocol, checked_pin, era_of
from zork_mcp.domain.servers.server_config import parse_mcp_config


@pytest.mark.parametrize(
    ("version", "era"),
    [("2024-11-05", Era.HANDSHAKE), ("2025-11-25", Era.HANDSHAKE), ("2026-07-28", Era.MODERN)],
)
def test_each_version_belongs_to_its_era(version, era):
    assert era_of(version) is era
    assert ServerProtocol("s", version).era is era


def test_a_version_of_no_era_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError) as refused:
        era_of("2027-01-01")
    assert str(refused.value) == (
        "unknown MCP protocol version '2027-01-01'; known: 2024-11-05, 2025-03-26, "
        "2025-06-18, 2025-11-25, 2026-07-28"
    )


def test_a_pin_is_kept_as_written_or_refused_saying_what_to_write():
    assert checked_pin("2025-06-18") == "2025-06-18"
    with pytest.raises(ValueError) as refused:
        checked_pin("latest")
    assert str(refused.value) == (
        "\"protocol\" 'latest' is not an MCP version this client speaks: use one of "
        "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, or leave it out to "
        "speak the newest the server supports"
    )


def test_a_config_entry_pins_its_server_or_is_refused_naming_the_entry():
    text = '{"mcpServers": {"r": {"command": "x", "protocol": "2025-11-25"}, "h": {"url": %s}}}'
    config = parse_mcp_config(text % '"http://127.0.0.1:1/mcp"', source="mcp_config.json")
    assert (config.mcpServers["r"].protocol, config.mcpServers["h"].protocol) == (
        "2025-11-25",
        None,
    )
    with pytest.raises(MCPConfigError, match=r"mcpServers\.r\.stdio\.protocol.*'2025'"):
        parse_mcp_config(
            '{"mcpServers": {"r": {"command": "x", "protocol": "2025"}}}', source="m.json"
        )


def test_a_server_s_protocol_is_said_once_per_version():
    assert ServerProtocol("s", "2026-07-28").key != ServerProtocol("s", "2025-11-25").key
    assert ServerProtocol("s", "2026-07-28").key != ServerProtocol("t", "2026-07-28").key
