"""A stdout line over the limit for one message: refused at once, dropped, never held whole."""

from __future__ import annotations

import asyncio
import json

import mcp.types as types

from zork_mcp.adapters.mcp.sdk_errors import TOO_LARGE
from zork_mcp.adapters.mcp.stdio.line_limit import (
    LINE_LIMIT,
    Waiting,
    drop_line,
    read_line,
    refuse_long_line,
)

LIMIT = 4096  # a small reader's limit: the rules do not depend on its size
NEXT = b'{"jsonrpc": "2.0", "id": 9, "result": {}}\n'


def reader_of(*chunks: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=LIMIT)
    for chunk in chunks:
        reader.feed_data(chunk)
    if eof:
        reader.feed_eof()
    return reader


def waiting_for(*ids: int) -> Waiting:
    waiting = Waiting()
    for request_id in ids:
        waiting.sent(types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/list"))
    return waiting


def answer(request_id: int, padding: int, id_last: bool = False) -> bytes:
    result = {"content": [{"type": "text", "text": "x" * padding}]}
    framed = {"jsonrpc": "2.0", "id": request_id, "result": result}
    if id_last:
        framed = {"result": result, "jsonrpc": "2.0", "id": request_id}
    return json.dumps(framed).encode() + b"\n"


async def test_the_request_a_long_line_names_is_told_it_was_too_large_and_the_next_line_reads():
    line = answer(3, 10 * LIMIT)
    reader = reader_of(line, NEXT)
    assert await read_line(reader) is None  # over the limit, left unread
    head, answers = await refuse_long_line(reader, waiting_for(1, 3))
    assert [a.id for a in answers] == [3]
    (refusal,) = answers
    assert refusal.error.code == TOO_LARGE
    assert refusal.error.message == (
        f"too large: over {LINE_LIMIT:,} bytes (64 MB), the most one message may have"
    )
    assert len(head) + await drop_line(reader) == len(line)
    assert await read_line(reader) == NEXT


async def test_a_long_line_that_names_its_request_last_answers_every_request_waiting():
    line = answer(3, 10 * LIMIT, id_last=True)
    reader = reader_of(line, NEXT)
    assert await read_line(reader) is None
    waiting = waiting_for(1, 3)
    waiting.answered(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={}))
    _, answers = await refuse_long_line(reader, waiting_for(1, 3))
    assert [a.id for a in answers] == [1, 3]
    _, answers = await refuse_long_line(reader_of(line), waiting)
    assert [a.id for a in answers] == [3]


async def test_junk_over_the_limit_with_no_newline_is_dropped_to_the_end_of_the_stream():
    reader = reader_of(*[b"x" * LIMIT] * 50)
    assert await read_line(reader) is None
    head, answers = await refuse_long_line(reader, Waiting())
    assert answers == []
    assert len(head) + await drop_line(reader) == 50 * LIMIT
    assert await read_line(reader) == b""


async def test_a_line_whose_newline_lies_past_the_limit_is_dropped_whole():
    line = b"x" * (3 * LIMIT) + b"\n"
    reader = reader_of(line[: LIMIT + 10], eof=False)
    assert await read_line(reader) is None
    head, _ = await refuse_long_line(reader, Waiting())
    dropping = asyncio.ensure_future(drop_line(reader))
    reader.feed_data(line[LIMIT + 10 :] + NEXT)
    reader.feed_eof()
    assert len(head) + await dropping == len(line)
    assert await read_line(reader) == NEXT


def test_a_request_is_waiting_from_when_it_is_sent_until_it_is_answered():
    waiting = waiting_for(1, 2, 3)
    waiting.answered(types.JSONRPCResponse(jsonrpc="2.0", id=2, result={}))
    error = types.ErrorData(code=-1, message="no")
    waiting.answered(types.JSONRPCError(jsonrpc="2.0", id=3, error=error))
    waiting.sent(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized"))
    assert waiting.ids() == [1]
