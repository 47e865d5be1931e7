"""Our servers' stdio transport: the SDK's, except that every request gets an answer.

The SDK drops a request whose JSON holds text that is not Unicode (a lone surrogate such
as `"\\ud800"`, valid JSON but not valid text) without a word, and the client waits for its
timeout. Such a request is answered here with an Invalid params error that says where.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from zork_mcp.domain.text_encoding import is_encodable


async def serve_stdio(server: MCPServer[Any]) -> None:
    errors_in, errors_out = anyio.create_memory_object_stream[types.JSONRPCError](16)
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    lines = _AnsweredLines(stdin, errors_in)
    async with stdio_server(stdin=lines) as (read, write), anyio.create_task_group() as tasks:  # type: ignore[arg-type]
        tasks.start_soon(_forward, errors_out, write)
        lowlevel = server._lowlevel_server
        await lowlevel.run(read, write, lowlevel.create_initialization_options())
        tasks.cancel_scope.cancel()


class _AnsweredLines:
    """The input lines, less the requests that are answered here with an error."""

    def __init__(self, lines: Any, errors: ObjectSendStream[types.JSONRPCError]) -> None:
        self._lines, self._errors = lines, errors

    def __aiter__(self) -> AsyncIterator[str]:
        return self._usable()

    async def _usable(self) -> AsyncIterator[str]:
        async for line in self._lines:
            error = unusable_request_error(line)
            if error is None:
                yield line
            else:
                await self._errors.send(error)


async def _forward(
    errors: ObjectReceiveStream[types.JSONRPCError], write: ObjectSendStream[SessionMessage]
) -> None:
    async for error in errors:
        await write.send(SessionMessage(error))


def unusable_request_error(line: str) -> types.JSONRPCError | None:
    """The error answering `line`, a request holding non-Unicode text; None for the rest."""
    if "\\ud" not in line.lower():
        return None  # no surrogate escape at all: the common case, decided without parsing
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    where = _surrogate_path(message.get("params"), "params")
    if where is None:
        return None
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=message["id"],
        error=types.ErrorData(
            code=types.INVALID_PARAMS,
            message=(
                f"Invalid params: {where} holds text that is not valid Unicode (a lone "
                "surrogate code point). Send it as UTF-8 text, without the unpaired surrogate."
            ),
        ),
    )


def _surrogate_path(value: Any, path: str) -> str | None:
    """Where in `value` the first unencodable text is (its path escaped), or None."""
    if isinstance(value, str):
        return None if is_encodable(value) else path
    if isinstance(value, dict):
        children = [(f"{path}.{_escaped(str(key))}", str(key), v) for key, v in value.items()]
    elif isinstance(value, list):
        children = [(f"{path}[{i}]", "", item) for i, item in enumerate(value)]
    else:
        return None
    for where, key, item in children:
        found = f"{where} (its name)" if not is_encodable(key) else _surrogate_path(item, where)
        if found:
            return found
    return None


def _escaped(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
