"""Servers are untrusted input (issue 35): the real stdio adapter, forked and spawned, against a
raw JSON-RPC server with one misbehaviour per case (tests/support/hostile_server.py).

Every case ends with the server's good tool usable, or the one documented failure (a startup
error naming what was wrong, a timeout, a broken session), and no process left behind.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from tests.support.hostile_server import CASES, GOOD_TOOL, command
from tests.support.http_servers import http_server
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
from zork_mcp.adapters.mcp.session import McpSession
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.domain.errors import (
    MCPServerStartupError,
    MCPSessionBrokenError,
    MCPToolCallError,
    MCPToolTimeoutError,
)
from zork_mcp.domain.servers.confinement import Sandbox
from zork_mcp.domain.servers.server_config import MCPHttpServerConfig, MCPServerConfig

pytestmark = pytest.mark.slow
GOOD = f"h.{GOOD_TOOL}"
STARTUP_SECONDS = 3.0
CALL_SECONDS = 3.0
STDERR_CAP = 100_000
Check = Callable[[McpSession], Awaitable[None]]


def hostile(case: str, tmp_path: Path, mode: str, **env: str) -> McpStdioToolServer:
    """In fork mode, forked from this process's fork server, as a sweep's episodes are: what
    is judged is the server's answers, and a fork server each would cost every case ~0.5 s
    of imports."""
    # confined as every server is; its pid file (stubborn_child) is in tmp_path
    sandbox = Sandbox(write=(str(tmp_path),))
    config = MCPServerConfig(
        command="python", args=tuple(command(case)[1:]), env=env, sandbox=sandbox
    )
    server = stdio_tool_server(
        {"h": config},
        startup_timeout_seconds=STARTUP_SECONDS,
        stderr_path=tmp_path / "stderr.log",
        stderr_log_bytes=STDERR_CAP,
        server_start=mode,
        shared_fork_server=True,
        background_spare=False,
    )
    if mode == "fork":
        assert server.fork_server_ready(30), "the fork server's imports, before the clock starts"
    return server


@pytest.fixture(params=["fork", "spawn"])
def mode(request) -> str:
    return request.param


async def good_tool_works(session: McpSession) -> None:
    result = await session.call_tool(GOOD, {"text": "hi"}, CALL_SECONDS)
    assert result.content == "good:hi" and not result.is_error


BAD_TOOLS = {
    "empty_name": ("", "its name is empty"),
    "name_not_string": ("", "its name is a number, not a string"),
    "schema_missing": ("bad", "it has no inputSchema"),
    "schema_null": ("bad", "its inputSchema is null, not an object schema"),
    "schema_list": ("bad", "its inputSchema is a list, not an object schema"),
    "schema_string": ("bad", "its inputSchema has type 'string'"),
    "required_not_list": ("bad", "'required' is not a list of property names"),
    "deep_schema": ("bad", "its inputSchema nests over 64 levels deep"),
}


@pytest.mark.parametrize("case", sorted(BAD_TOOLS))
async def test_a_bad_tool_is_rejected_alone_and_the_good_one_stays(case, tmp_path, mode):
    server = hostile(case, tmp_path, mode)
    async with server.open_session() as session:
        await only_the_bad_tool_is_rejected(session, case)
    assert_no_processes_left(server)


async def only_the_bad_tool_is_rejected(session: McpSession, case: str) -> None:
    assert [spec.canonical_name for spec in session.tools] == [GOOD]
    (rejection,) = session.rejected
    tool, reason = BAD_TOOLS[case]
    assert (rejection.server, rejection.tool) == ("h", tool)
    assert reason in rejection.reason
    await good_tool_works(session)


@pytest.mark.parametrize(
    ("case", "problem"),
    [
        ("unreadable_list", "has 'tools' = 'not a list', not a list of tools"),
        ("list_not_object", "its result is a list, not an object"),
    ],
)
async def test_an_unreadable_tool_list_fails_the_connect_at_once_saying_why(
    case, problem, tmp_path, mode
):
    server = hostile(case, tmp_path, mode)
    with pytest.raises(MCPServerStartupError) as caught:
        async with server.open_session():
            pass
    message = str(caught.value)
    assert "'h'" in message and "could not be read" in message and problem in message
    assert "within" not in message  # not the startup timeout
    assert_no_processes_left(server)


async def test_many_tools_are_all_read(tmp_path, mode):
    server = hostile("many_tools", tmp_path, mode)
    async with server.open_session() as session:
        assert len(session.tools) == 5001 and session.rejected == []
        await good_tool_works(session)
    assert_no_processes_left(server)


async def test_odd_but_valid_names_and_schemas_are_kept(tmp_path, mode):
    for case, names in {
        "odd_names": ["with space", "dotted.name", "slash/name", "ünïcödé", "x" * 300, "dup"],
        "ref_cycle": ["tree"],
        "huge_enum": ["pick"],
    }.items():
        server = hostile(case, tmp_path, mode)
        async with server.open_session() as session:
            assert [spec.name for spec in session.tools] == [*names, GOOD_TOOL]
            for name in names:
                result = await session.call_tool(f"h.{name}", {}, CALL_SECONDS)
                assert result.content == f"called:{name}"
            if case == "odd_names":  # the second "dup" is refused, the first kept
                assert [(r.tool, r.reason) for r in session.rejected] == [
                    ("dup", "an earlier tool of the server has this name")
                ]
        assert_no_processes_left(server)


ODD_CONTENT = [
    "first",
    "[a content item of a type MCP does not define ('hologram') was left out]",
    "[image: image/png, 3,000 bytes omitted]",
    "[audio: audio/wav, 1,000 bytes omitted]",
    {"type": "resource_link", "uri": "file:///tmp/x.txt", "name": "x.txt"},
    {
        "type": "resource",
        "uri": "file:///tmp/y.txt",
        "mimeType": "text/plain",
        "text": "y" * 5000,
    },
    "last",
    "[a content item that is not an object was left out]",
]


async def test_odd_content_items_are_kept_one_by_one(tmp_path, mode):
    server = hostile("odd_content", tmp_path, mode)
    async with server.open_session() as session:
        result = await session.call_tool(GOOD, {}, CALL_SECONDS)
    assert not result.is_error
    assert result.content == ODD_CONTENT
    assert_no_processes_left(server)


async def test_a_result_of_one_unknown_item_is_a_one_line_note(tmp_path, mode):
    server = hostile("bad_result_item_only", tmp_path, mode)
    async with server.open_session() as session:
        result = await session.call_tool(GOOD, {}, CALL_SECONDS)
    assert result.content == (
        "[a content item of a type MCP does not define ('hologram') was left out]"
    )
    assert_no_processes_left(server)


async def test_an_unreadable_answer_fails_the_call_at_once_and_the_session_goes_on(tmp_path, mode):
    server = hostile("unreadable_answer", tmp_path, mode)
    async with server.open_session() as session:
        with pytest.raises(MCPToolCallError, match="result is a string, not an object") as caught:
            await session.call_tool(GOOD, {}, 60)  # long: the error is not the timeout
        assert len(str(caught.value)) < 200  # a line, never a validation dump
    assert_no_processes_left(server)


async def test_a_notification_flood_times_the_call_out_and_nothing_crashes(tmp_path, mode):
    server = hostile("log_flood", tmp_path, mode, HOSTILE_FLOOD="100000")
    async with server.open_session() as session:
        with contextlib.suppress(MCPToolTimeoutError):  # the flood may outlast the call
            await good_tool_works(session)
    assert_no_processes_left(server)


async def test_server_requests_are_refused_with_an_mcp_error_at_once(tmp_path, mode):
    server = hostile("server_requests", tmp_path, mode)
    async with server.open_session() as session:
        result = await session.call_tool(GOOD, {}, CALL_SECONDS)
    answers = json.loads(result.content)
    assert [answer["code"] for answer in answers] == [-32600, -32600, -32600]
    assert_no_processes_left(server)


async def test_stderr_is_capped_per_server_with_a_line_saying_what_was_dropped(tmp_path, mode):
    server = hostile("stderr_flood", tmp_path, mode, HOSTILE_STDERR_BYTES="3000000")
    async with server.open_session() as session:
        await good_tool_works(session)
        await good_tool_works(session)
    assert_no_processes_left(server)
    log = (tmp_path / "stderr.log").read_bytes()
    assert STDERR_CAP < len(log) < STDERR_CAP + 1000
    assert b"the stderr of server 'h' reached 100000 bytes this episode" in log
    assert b"the stderr of server 'h': 5900000 more bytes were dropped" in log


async def test_a_child_that_ignores_sigterm_ends_with_the_session(tmp_path, mode):
    pid_file = tmp_path / "child.pid"
    server = hostile("stubborn_child", tmp_path, mode, HOSTILE_PID_FILE=str(pid_file))
    async with server.open_session() as session:
        await good_tool_works(session)
    assert_no_processes_left(server)
    child = int(pid_file.read_text())
    assert not Path(f"/proc/{child}").exists() or _zombie(child)


def _zombie(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


async def test_what_already_held_still_holds(tmp_path, mode):
    """Junk and non-UTF-8 stdout, list_changed storms, 8-byte writes, a 50 MB result."""
    for case in ("junk_stdout", "list_changed_storm", "slow_bytes", "big_result"):
        server = hostile(case, tmp_path, mode)
        async with server.open_session() as session:
            if case == "big_result":
                result = await session.call_tool(GOOD, {}, 30)
                assert len(result.content) == 50_000_000
            else:
                await good_tool_works(session)
        assert_no_processes_left(server)


async def test_an_answer_that_never_comes_ends_the_call_at_its_timeout(tmp_path, mode):
    server = hostile("wrong_ids", tmp_path, mode)
    async with server.open_session() as session:
        with pytest.raises(MCPToolTimeoutError):
            await session.call_tool(GOOD, {}, CALL_SECONDS)
    assert_no_processes_left(server)


TOO_LARGE = "too large: over 67,108,864 bytes (64 MB), the most one message may have"


async def test_an_answer_over_the_line_limit_fails_the_call_at_once_saying_so(tmp_path, mode):
    """A 200 MB line with no newline: the call learns at once that the answer was too large
    and by how much at least, never that the server exited; it is never held whole."""
    server = hostile("long_line", tmp_path, mode)
    async with server.open_session() as session:
        started = time.monotonic()
        with pytest.raises(MCPToolCallError) as caught:
            await session.call_tool(GOOD, {}, 60)  # long: the error is not the timeout
        assert time.monotonic() - started < 30
    assert str(caught.value) == f"h.{GOOD_TOOL}: the server's answer is {TOO_LARGE}"
    assert_no_processes_left(server)
    log = (tmp_path / "stderr.log").read_text()
    assert "a stdout line over the 67,108,864-byte limit for one message" in log


@pytest.mark.parametrize("id_last", ["0", "1"])
async def test_a_tool_list_over_the_line_limit_is_a_startup_error_saying_so(
    id_last, tmp_path, mode
):
    """A 100 MB tools/list answer, its id first or (as the TypeScript SDK writes) last."""
    server = hostile("long_list", tmp_path, mode, HOSTILE_ID_LAST=id_last)
    with pytest.raises(MCPServerStartupError) as caught:
        async with server.open_session():
            pass
    message = str(caught.value)
    assert f"Failed to start MCP server 'h': its tools/list answer is {TOO_LARGE}" in message
    assert "the limit is fixed" in message and "nextCursor" in message
    assert "exited" not in message and "within" not in message
    assert_no_processes_left(server)


async def test_a_server_that_dies_after_answering_breaks_only_its_session(tmp_path, mode):
    server = hostile("dies_after_answer", tmp_path, mode)
    async with server.open_session() as session:
        await good_tool_works(session)
        with pytest.raises(MCPSessionBrokenError):
            await session.call_tool(GOOD, {}, CALL_SECONDS)
    assert_no_processes_left(server)


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("no_initialize_answer", "within 3s"),
        ("unknown_version", "Unsupported protocol version"),
    ],
)
async def test_a_handshake_that_fails_is_a_startup_error(case, said, tmp_path, mode):
    server = hostile(case, tmp_path, mode)
    with pytest.raises(MCPServerStartupError, match=said):
        async with server.open_session():
            pass
    assert_no_processes_left(server)


def test_every_case_of_the_fixture_is_run_here():
    source = Path(__file__).read_text()
    assert [case for case in CASES if f'"{case}"' not in source] == []


# HTTP servers pass the same judgment of tools and results: the fixture over Streamable HTTP
# (`hostile_server.py CASE --http PORT`) against the real HTTP adapter.


@pytest.fixture(params=["json", "sse"])
def answers(request) -> str:
    """How the server answers a POST: one JSON body, or an SSE stream of one event."""
    return request.param


@contextlib.contextmanager
def hostile_http(case: str, answers: str) -> Iterator[McpHttpToolServer]:
    argv = [*command(case)[1:], "--http", "{port}"]
    with http_server(argv, env={"HOSTILE_HTTP_ANSWERS": answers}) as remote:
        config = MCPHttpServerConfig(url=remote.url)
        yield McpHttpToolServer({"h": config}, startup_timeout_seconds=STARTUP_SECONDS)


@pytest.mark.parametrize("case", sorted(BAD_TOOLS))
async def test_over_http_a_bad_tool_is_rejected_alone_and_the_good_one_stays(case, answers):
    with hostile_http(case, answers) as server:
        async with server.open_session() as session:
            await only_the_bad_tool_is_rejected(session, case)


async def test_over_http_odd_content_items_are_kept_one_by_one(answers):
    with hostile_http("odd_content", answers) as server:
        async with server.open_session() as session:
            result = await session.call_tool(GOOD, {}, CALL_SECONDS)
    assert not result.is_error
    assert result.content == ODD_CONTENT


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("unreadable_list", "has 'tools' = 'not a list', not a list of tools"),
        ("list_not_object", "its result is a list, not an object"),
    ],
)
async def test_over_http_an_unreadable_tool_list_fails_the_connect_at_once_saying_why(
    case, said, answers
):
    with hostile_http(case, answers) as server, pytest.raises(MCPServerStartupError) as caught:
        async with server.open_session():
            pass
    message = str(caught.value)
    assert "'h'" in message and said in message
    assert "did not finish" not in message  # not the startup timeout
    assert "validation error" not in message  # not the SDK's dump


async def test_over_http_an_unreadable_answer_fails_the_call_at_once_in_a_line_and_goes_on(
    answers,
):
    with hostile_http("unreadable_answer", answers) as server:
        async with server.open_session() as session:
            for _ in range(2):
                started = time.monotonic()
                with pytest.raises(
                    MCPToolCallError, match="result is a string, not an object"
                ) as caught:
                    await session.call_tool(GOOD, {}, 60)  # long: the error is not the timeout
                assert time.monotonic() - started < 5 and len(str(caught.value)) < 200
