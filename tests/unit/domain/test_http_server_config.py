"""mcp_config.json entries for remote servers over Streamable HTTP (issue 16).

The spellings are those of Claude Code (`"type": "http"`), Cursor and VS Code
(`"url"` alone, `"streamable-http"`); headers expand `${VAR}` as Claude Code does.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.servers.server_config import (
    HTTP_TYPES,
    MCPHttpServerConfig,
    MCPServerConfig,
    parse_mcp_config,
)


def parse(servers: dict) -> dict:
    return parse_mcp_config(json.dumps({"mcpServers": servers}), source="mcp.json").mcpServers


@pytest.mark.parametrize("spelling", HTTP_TYPES)
def test_every_client_spelling_is_an_http_server(spelling):
    server = parse({"r": {"type": spelling, "url": "http://127.0.0.1:9/mcp"}})["r"]
    assert isinstance(server, MCPHttpServerConfig) and server.url == "http://127.0.0.1:9/mcp"


def test_a_url_alone_is_an_http_server_and_stdio_and_http_mix():
    servers = parse({"local": {"command": "x"}, "remote": {"url": "https://example.org/mcp"}})
    assert isinstance(servers["local"], MCPServerConfig)
    assert isinstance(servers["remote"], MCPHttpServerConfig)


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ({"type": "http"}, "mcpServers.r.http.url: Field required"),
        ({"type": "http", "url": "ftp://host/mcp"}, "is not an http:// or https:// address"),
        ({"url": "127.0.0.1:8000/mcp"}, "is not an http:// or https:// address"),
        ({"command": "x", "url": "http://h/mcp"}, 'has both "command" and "url"'),
        ({"type": "sse", "url": "http://h/mcp"}, "'streamable-http'"),
    ],
)
def test_bad_http_entries_name_the_problem(entry, fragment):
    with pytest.raises(MCPConfigError) as caught:
        parse({"r": entry})
    assert fragment in str(caught.value)


def test_headers_expand_variables_from_the_environment():
    server = MCPHttpServerConfig(
        url="http://h/mcp", headers={"Authorization": "Bearer ${TOKEN}", "X-Team": "${A}-${B}"}
    )
    env = {"TOKEN": "s3cret", "A": "1", "B": "2"}
    assert server.resolved_headers(env, "r") == {"Authorization": "Bearer s3cret", "X-Team": "1-2"}


def test_an_unset_variable_names_server_header_and_variable():
    server = MCPHttpServerConfig(url="http://h/mcp", headers={"Authorization": "Bearer ${TOKEN}"})
    with pytest.raises(MCPConfigError) as caught:
        server.resolved_headers({}, "remote")
    message = str(caught.value)
    assert "'remote'" in message and "Authorization" in message and "TOKEN is not set" in message


secrets = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=12, max_size=40)
# a "secret" such as "include_tool" is in every repr as a field's name, not as a value
secrets = secrets.filter(lambda s: s not in repr(MCPHttpServerConfig(url="http://h/mcp")))


@given(secret=secrets)
def test_no_header_value_reaches_a_repr_or_an_advice(secret):
    """The design's secrecy rule: values never leave the request (property: no secret logged)."""
    server = MCPHttpServerConfig(
        url="http://h/mcp", headers={"Authorization": f"Bearer {secret}", "X-Key": "${KEY}"}
    )
    assert secret not in repr(server) and secret not in str(server)
    advice = server.header_sources()
    assert secret not in advice
    assert "Authorization header" in advice and "X-Key header (from $KEY)" in advice


def test_a_server_entry_that_is_not_an_object_is_read_as_a_stdio_server_and_refused_so():
    with pytest.raises(MCPConfigError) as caught:
        parse({"r": "npx server"})
    assert "mcpServers.r.stdio: Input should be a valid dictionary" in str(caught.value)


def test_the_header_advice_lists_each_header_and_each_variable_comma_separated():
    server = MCPHttpServerConfig(url="http://h/mcp", headers={"A": "x", "B": "${K1}-${K2}"})
    assert server.header_sources() == "the A header, the B header (from $K1, $K2)"
