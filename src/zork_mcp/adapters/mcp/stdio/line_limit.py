"""A server's stdout line over the limit for one message: never held whole.

The request it answers learns at once that the answer was too large, and by how much at
least; a line that does not say which request it answers before the limit (the TypeScript
SDK writes the id last; junk names none) is taken as the answer to every request still
waiting. The rest of the line is read and dropped, and the session goes on with the next.
"""

from __future__ import annotations

import asyncio
import contextlib

import mcp.types as types

from zork_mcp.adapters.mcp.wire import RequestId, answered_id, too_large_answer

LINE_LIMIT = 64 * 1024 * 1024
HEAD_BYTES = 512  # of a line over the limit: where its id is read from


class Waiting:
    """The requests sent to the server and not answered yet."""

    def __init__(self) -> None:
        self._ids: dict[RequestId, None] = {}

    def sent(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCRequest):
            self._ids[message.id] = None

    def answered(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._ids.pop(message.id, None)

    def ids(self) -> list[RequestId]:
        return list(self._ids)


async def read_line(reader: asyncio.StreamReader) -> bytes | None:
    """The next line; b"" at the end of the stream; None for a line over LINE_LIMIT, which
    is left unread for `refuse_long_line` and `drop_line`."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as e:
        return e.partial
    except asyncio.LimitOverrunError:
        return None
    except ConnectionError:
        return b""


async def refuse_long_line(
    reader: asyncio.StreamReader, waiting: Waiting
) -> tuple[bytes, list[types.JSONRPCError]]:
    """The line's first bytes, and an answer saying it was too large to each request it may
    answer: the one its head names, else every request waiting."""
    head = await reader.readexactly(HEAD_BYTES)
    answered = answered_id(head)
    ids = [answered] if answered is not None else waiting.ids()
    return head, [too_large_answer(request_id, LINE_LIMIT) for request_id in ids]


async def drop_line(reader: asyncio.StreamReader) -> int:
    """Reads the rest of the line (to its newline or the end of the stream) and drops it,
    holding at most LINE_LIMIT of it at a time; how many bytes that was."""
    dropped = 0
    while True:
        try:
            return dropped + len(await reader.readuntil(b"\n"))
        except asyncio.IncompleteReadError as e:
            return dropped + len(e.partial)
        except ConnectionError:
            return dropped
        except asyncio.LimitOverrunError as e:
            ended = "not found" not in str(e)  # asyncio: the newline lies past the limit
            dropped += e.consumed + ended
            with contextlib.suppress(ValueError):
                # The same bytes dropped as readline drops them: the buffer cleared whole,
                # where reading them out would copy them and shrink it piece by piece.
                await reader.readline()
            if ended:
                return dropped
