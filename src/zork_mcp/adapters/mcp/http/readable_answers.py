"""An httpx transport that hands the SDK each answer as the stdio pipes would read it.

The SDK's Streamable HTTP client parses each answer (a POST's JSON body, or one event of its
SSE stream) with pydantic alone: an answer nested deeper than ~200 levels (one tool's schema,
say) fails the whole `tools/list`, and an answer of the wrong shape becomes a PARSE_ERROR
carrying a validation dump. This transport rewrites such an answer first
(`wire.sdk_readable`), so the listing judges tool by tool and a bad answer is a one-line
error, over HTTP as over stdio. Answers the SDK reads already pass byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx2
import mcp.types as types

from zork_mcp.adapters.mcp.sdk_errors import CONNECTION_CLOSED
from zork_mcp.adapters.mcp.wire import RequestId, sdk_readable

_FRAMING = frozenset({"content-length", "content-encoding", "transfer-encoding"})
# One SSE event larger than this passes as it is, for the SDK's own size limit to refuse.
EVENT_LIMIT = 64 * 1024 * 1024


class ReadableAnswers(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request_id = _request_id(request)
        try:
            return await self._readable(request, request_id)
        except (httpx2.RemoteProtocolError, httpx2.ReadError) as error:
            if request_id is None:
                raise
            return _unanswered(request, request_id, error)

    async def _readable(
        self, request: httpx2.Request, request_id: RequestId | None
    ) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if request_id is None or response.status_code != 200:
            return response
        content_type = response.headers.get("content-type", "").lower()
        if content_type.startswith("application/json"):
            body = sdk_readable(await response.aread(), request_id)
            return _answer(response, request, httpx2.ByteStream(body))
        if content_type.startswith("text/event-stream"):
            return _answer(response, request, _ReadableEvents(response, request_id))
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def _unanswered(
    request: httpx2.Request, request_id: RequestId, error: httpx2.TransportError
) -> httpx2.Response:
    reason = f"the server closed the connection without answering ({type(error).__name__})"
    closed = types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=CONNECTION_CLOSED, message=reason)
    )
    body = closed.model_dump_json(by_alias=True, exclude_none=True).encode()
    return httpx2.Response(
        200, headers={"content-type": "application/json"}, content=body, request=request
    )


def _answer(
    response: httpx2.Response, request: httpx2.Request, body: httpx2.AsyncByteStream
) -> httpx2.Response:
    """The response with `body` in place of its own, its framing headers dropped."""
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _FRAMING]
    return httpx2.Response(
        response.status_code,
        headers=headers,
        stream=body,
        request=request,
        extensions=response.extensions,
    )


class _ReadableEvents(httpx2.AsyncByteStream):
    """The SSE stream with each event's data made readable; every other line as it came."""

    def __init__(self, response: httpx2.Response, request_id: RequestId) -> None:
        self._response = response
        self._request_id = request_id

    async def __aiter__(self) -> AsyncIterator[bytes]:
        event: list[bytes] = []
        size = 0
        async for line in _lines(self._response.aiter_bytes()):
            event.append(line)
            size += len(line)
            if size > EVENT_LIMIT:
                yield b"".join(event)  # as it came: the SDK refuses an event this large
                event, size = [], 0
            elif line in (b"\n", b"\r\n"):
                yield self._readable(event)
                event, size = [], 0
        yield b"".join(event)

    def _readable(self, event: list[bytes]) -> bytes:
        """The event (its last line blank) with its data rewritten if the SDK cannot read it."""
        data = [line for line in event if line.startswith(b"data:")]
        if not data or any(b"\r" in line.rstrip(b"\r\n") for line in event):
            return b"".join(event)  # no data, or a lone CR: the SDK reads it as it is
        joined = b"\n".join(line[5:].removeprefix(b" ").rstrip(b"\r\n") for line in data)
        if not joined:
            return b"".join(event)  # a priming event (SEP-1699): an id to resume from, no answer
        readable = sdk_readable(joined, self._request_id)
        if readable is joined:
            return b"".join(event)
        fields = [line for line in event[:-1] if not line.startswith(b"data:")]
        return b"".join([*fields, b"data: ", readable, b"\n\n"])

    async def aclose(self) -> None:
        await self._response.aclose()


async def _lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Each line with its LF; a line past EVENT_LIMIT comes in pieces of about that size."""
    pending: list[bytes] = []
    size = 0
    async for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            yield b"".join([*pending, chunk[start : end + 1]])
            pending, size, start = [], 0, end + 1
        if start < len(chunk):
            pending.append(chunk[start:])
            size += len(chunk) - start
        if size > EVENT_LIMIT:
            yield b"".join(pending)
            pending, size = [], 0
    yield b"".join(pending)


def _request_id(request: httpx2.Request) -> RequestId | None:
    """The id of the JSON-RPC request this POST carries; None for anything else."""
    if request.method != "POST":
        return None
    try:
        message = json.loads(request.content)
    except (httpx2.RequestNotRead, ValueError):
        return None
    if not isinstance(message, dict) or "method" not in message:
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    return request_id
