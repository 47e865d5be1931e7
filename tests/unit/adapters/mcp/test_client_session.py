"""Output-schema validators outlive the session that compiled them (one session per turn),
and validation itself is unchanged: through real server processes and the real SDK. Content
that breaks the schema fails that call alone, in one line (issue 35)."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
from jsonschema.validators import Draft202012Validator

from tests.support.paths import ROOT
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = pytest.mark.slow
SCHEMA_SERVER = ROOT / "tests" / "support" / "schema_server.py"


def schema_server(schema: dict, tmp_path: Path) -> McpStdioToolServer:
    config = MCPServerConfig(command="python", args=(str(SCHEMA_SERVER), json.dumps(schema)))
    return stdio_tool_server(
        {"s": config},
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
        shared_fork_server=True,
    )


def unique_schema(**n: object) -> dict:
    """A schema no other test compiled (the validators are kept for the whole process)."""
    properties = {"n": {"type": "integer", **n}}
    return {"type": "object", "title": uuid.uuid4().hex, "properties": properties}


async def call(server: McpStdioToolServer, n: object):
    async with server.open_session() as session:
        return await session.call_tool("s.count", {"n": n}, 10)


@pytest.fixture
def schema_checks(monkeypatch) -> list[dict]:
    """Every schema checked against the metaschema, which is what compiling costs."""
    checked: list[dict] = []
    check = Draft202012Validator.check_schema.__func__

    def counted(cls, schema, *args, **kwargs):
        checked.append(schema)
        return check(cls, schema, *args, **kwargs)

    monkeypatch.setattr(Draft202012Validator, "check_schema", classmethod(counted))
    return checked


async def test_a_schema_is_compiled_once_for_every_session(tmp_path, schema_checks):
    schema = unique_schema(minimum=0)
    server = schema_server(schema, tmp_path)
    results = [(await call(server, n)).content for n in (1, 2, 3)]
    assert results == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert schema_checks.count(schema) == 1, "three sessions, one compile"
    refused = await call(server, -1)  # a kept validator still validates
    assert refused.is_error and refused.error_message == (
        "s.count: Invalid structured content returned by tool count: "
        "-1 is less than the minimum of 0"
    )
    assert_no_processes_left(server)


async def test_a_changed_schema_is_compiled_anew(tmp_path, schema_checks):
    first, second = unique_schema(), unique_schema(maximum=5)
    for schema in (first, second):
        server = schema_server(schema, tmp_path)
        assert (await call(server, 3)).content == {"n": 3}
        assert_no_processes_left(server)
    # Only these two: a schema another test compiled first in this worker (the input's
    # {"type": "object"}) is compiled here or not, by the order the tests ran in.
    assert [schema for schema in schema_checks if schema in (first, second)] == [first, second]
    server = schema_server(second, tmp_path)
    refused = await call(server, 7)
    assert refused.is_error and "7 is greater than the maximum of 5" in refused.error_message
    assert_no_processes_left(server)


async def test_an_invalid_schema_is_refused_on_every_call(tmp_path):
    server = schema_server(
        {"type": "object", "title": uuid.uuid4().hex, "minProperties": -1}, tmp_path
    )
    for _ in range(2):
        refused = await call(server, 1)
        assert refused.is_error and refused.error_message == (
            "s.count: Invalid schema for tool count: -1 is less than the minimum of 0"
        )
    assert_no_processes_left(server)


async def test_our_client_names_itself_and_our_servers_their_version(tmp_path):
    """Servers see `zork-mcp` at the package version (the SDK's default says `mcp 0.1.0`)."""
    from mcp import Client, StdioServerParameters

    from zork_mcp import __version__

    whoami = MCPServerConfig(command="python", args=(str(ROOT / "tests/support/whoami_server.py"),))
    server = stdio_tool_server(
        {"who": whoami},
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
        shared_fork_server=True,
    )
    try:
        async with server.open_session() as session:
            said = await session.call_tool("who.client", {}, 10)
    finally:
        server.close()
    assert said.content == f"zork-mcp {__version__}" and __version__ != "0+unknown"
    for module in ("zork_mcp.servers.reasoning", "zork_mcp.servers.text_adventure"):
        params = StdioServerParameters(command=sys.executable, args=["-m", module])
        async with Client(params) as client:
            assert client.server_info.version == __version__
