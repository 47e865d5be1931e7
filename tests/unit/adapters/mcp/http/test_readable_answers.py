"""Over HTTP the SDK reads each answer as the stdio pipes do (issue 35): an answer nested too
deep for pydantic's parser, or of the wrong shape, is rewritten before the SDK parses it,
whether it comes as a JSON body or as an SSE event split at any byte; every answer the SDK
reads already passes byte for byte."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator

import httpx2
import mcp.types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.mcp.http.readable_answers import EVENT_LIMIT, ReadableAnswers
from zork_mcp.adapters.mcp.http.tool_server import proxy_for
from zork_mcp.adapters.mcp.sdk_errors import CONNECTION_CLOSED, UNREADABLE
from zork_mcp.adapters.mcp.wire import SDK_DEPTH, TOO_DEEP, read_message, sdk_readable

REQUEST = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}


def nested(depth: int) -> dict:
    schema: dict = {"type": "object"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def tools_answer(*schemas: dict) -> dict:
    tools = [{"name": f"t{i}", "inputSchema": s} for i, s in enumerate(schemas)]
    return {"jsonrpc": "2.0", "id": 7, "result": {"tools": tools}}


def sdk_reads(data: bytes) -> types.JSONRPCMessage:
    return types.jsonrpc_message_adapter.validate_json(data, by_name=False)


def test_an_answer_too_deep_for_the_sdk_is_cut_below_its_limit_and_the_rest_kept():
    answer = tools_answer({"type": "object"}, nested(400))
    with pytest.raises(ValueError):
        sdk_reads(json.dumps(answer).encode())
    message = sdk_reads(sdk_readable(json.dumps(answer).encode(), 7))
    first, deep = message.result["tools"]
    assert first == answer["result"]["tools"][0]
    assert TOO_DEEP in json.dumps(deep) and json.dumps(deep).count("{") == SDK_DEPTH - 3


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (b'{"jsonrpc": "2.0", "id": 7, "result": "text"}', "its result is a string, not an object"),
        (b"[1, 2]", "it is a list, not an object"),
        (b"not json", "it is not JSON"),
        (b'{"jsonrpc": "2.0", "id": 7, "error": 3}', "its error is not an object"),
        (b"[" * 100_000, "it nests too deep"),
    ],
)
def test_an_unreadable_answer_becomes_our_one_line_error_to_the_request(answer, reason):
    message = sdk_reads(sdk_readable(answer, 7))
    assert isinstance(message, types.JSONRPCError) and message.id == 7
    assert message.error.code == UNREADABLE and reason in message.error.message
    assert "\n" not in message.error.message and len(message.error.message) < 200


@given(st.recursive(st.none() | st.integers() | st.text(), lambda c: st.lists(c, max_size=3)))
def test_an_answer_the_sdk_reads_passes_byte_for_byte(result):
    answer = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"r": result}}).encode()
    assert sdk_readable(answer, 7) is answer
    assert read_message(answer) == sdk_reads(answer)


class Chunks(httpx2.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    return [body[a:b] for a, b in itertools.pairwise(points)]


async def through(body: bytes, content_type: str, cuts: list[int] = ()) -> bytes:
    def answer(request: httpx2.Request) -> httpx2.Response:
        stream = Chunks(split(body, list(cuts)))
        return httpx2.Response(200, headers={"content-type": content_type}, stream=stream)

    transport = ReadableAnswers(httpx2.MockTransport(answer))
    async with httpx2.AsyncClient(transport=transport) as client:
        response = await client.post("http://127.0.0.1:1/mcp", json=REQUEST)
        return await response.aread()


def sse(*events: bytes, end: bytes = b"\r\n") -> bytes:
    return b"".join(b"event: message" + end + b"data: " + e + end + end for e in events)


@given(
    events=st.lists(
        st.builds(
            lambda v: json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"v": v}}).encode(),
            st.text(),
        ),
        min_size=1,
        max_size=3,
    ),
    end=st.sampled_from([b"\n", b"\r\n"]),
    cuts=st.lists(st.integers(min_value=0), max_size=8),
)
async def test_an_sse_stream_the_sdk_reads_passes_byte_for_byte_however_it_is_split(
    events, end, cuts
):
    body = sse(*events, end=end)
    assert await through(body, "text/event-stream", cuts) == body


@given(cuts=st.lists(st.integers(min_value=0), max_size=8))
async def test_an_sse_event_too_deep_or_unreadable_is_rewritten_however_it_is_split(cuts):
    deep = json.dumps(tools_answer({"type": "object"}, nested(400))).encode()
    bad = b'{"jsonrpc": "2.0", "id": 7, "result": "text"}'
    body = sse(b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}', deep, bad)
    out = await through(body, "text/event-stream", cuts)
    assert out.split(b"\r\n\r\n")[0] == body.split(b"\r\n\r\n")[0]  # read already: as it came
    data = [line[6:] for line in out.splitlines() if line.startswith(b"data: ")]
    progress, tools, error = (sdk_reads(d) for d in data)
    assert isinstance(progress, types.JSONRPCNotification)
    assert tools.result["tools"][0] == {"name": "t0", "inputSchema": {"type": "object"}}
    assert "its result is a string" in error.error.message


@given(cuts=st.lists(st.integers(min_value=0), max_size=8))
async def test_a_priming_event_with_empty_data_passes_as_it_came(cuts):
    """SEP-1699: a server opens a call's stream with an id and a retry, its data empty."""
    answer = b'{"jsonrpc": "2.0", "id": 7, "result": {"content": []}}'
    body = b"id: 1\r\nretry: 500\r\ndata: \r\n\r\n" + sse(answer)
    assert await through(body, "text/event-stream", cuts) == body


async def test_a_request_the_server_took_and_never_answered_is_answered_connection_closed():
    def hang_up(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.RemoteProtocolError("Server disconnected without sending a response.")

    transport = ReadableAnswers(httpx2.MockTransport(hang_up))
    async with httpx2.AsyncClient(transport=transport) as client:
        response = await client.post("http://127.0.0.1:1/mcp", json=REQUEST)
        error = sdk_reads(await response.aread())
        assert (error.id, error.error.code) == (7, CONNECTION_CLOSED)
        assert "closed the connection without answering" in error.error.message
        with pytest.raises(httpx2.RemoteProtocolError):  # not a request: nothing to answer
            await client.post("http://127.0.0.1:1/mcp", json={"jsonrpc": "2.0", "method": "x"})


async def test_a_json_body_is_rewritten_and_its_framing_headers_dropped():
    out = await through(b'{"jsonrpc": "2.0", "id": 7, "result": []}', "application/json")
    assert "its result is a list" in sdk_reads(out).error.message


async def test_an_event_past_the_limit_passes_as_it_came_for_the_sdk_to_refuse():
    body = sse(b"[" * (EVENT_LIMIT + 10))
    assert await through(body, "text/event-stream", [1 << 20, 5 << 20]) == body


@pytest.mark.parametrize(
    ("env", "url", "proxy"),
    [
        ({}, "https://mcp.example.com/mcp", None),
        ({"HTTPS_PROXY": "http://proxy:3128"}, "https://mcp.example.com/mcp", "http://proxy:3128"),
        ({"https_proxy": "http://proxy:3128"}, "http://mcp.example.com/mcp", None),
        ({"ALL_PROXY": "http://proxy:3128"}, "http://mcp.example.com/mcp", "http://proxy:3128"),
        (
            {"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": "example.com"},
            "https://mcp.example.com/mcp",
            None,
        ),
    ],
)
def test_the_transport_goes_through_the_proxy_the_environment_names(env, url, proxy, monkeypatch):
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert proxy_for(url) == proxy
