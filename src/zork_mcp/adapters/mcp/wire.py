"""What a server sends, read the same way over every transport.

One message is read whole or not at all: an answer that cannot be read becomes an error
answer to its request, saying in one line why, so the caller learns it at once rather than
at its timeout. The SDK's own parser (pydantic's) stops at ~200 levels of nesting; the
standard one reads deeper, and judging what was read is the listing's and results' work.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp.types as types

from zork_mcp.adapters.mcp.sdk_errors import TOO_LARGE, UNREADABLE
from zork_mcp.domain.tools.tool_judgment import kind_of

# Below pydantic's ~200 levels, far above the 64 a tool schema may nest (tool_judgment).
SDK_DEPTH = 128
TOO_DEEP = "[nested too deep: cut here]"
RequestId = int | str


def read_message(data: bytes, request_id: RequestId | None = None) -> types.JSONRPCMessage | None:
    """The data as a JSON-RPC message, or an error answer to its request saying why it is
    unreadable; None for data that is no message (junk a server printed). `request_id`:
    the request the data answers, when the transport knows it (HTTP); else read from it."""
    try:
        return types.jsonrpc_message_adapter.validate_json(data, by_name=False)
    except ValueError:
        pass
    try:
        return types.jsonrpc_message_adapter.validate_python(json.loads(data), by_name=False)
    except (ValueError, RecursionError) as e:
        answered = answered_id(data) if request_id is None else request_id
        if answered is None:
            return None
        reason = "it nests too deep" if isinstance(e, RecursionError) else _problem(data)
        return unreadable_answer(answered, reason)


def unreadable_answer(request_id: RequestId, reason: str) -> types.JSONRPCError:
    message = f"the server's answer is unreadable: {reason}"
    error = types.ErrorData(code=UNREADABLE, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def too_large_answer(request_id: RequestId, limit: int) -> types.JSONRPCError:
    """An error answer to a request whose answer was over `limit` bytes, so never read.
    Its message has no subject: each reader says whose answer it was (a call, tools/list)."""
    most = f"{limit:,} bytes ({limit / 2**20:,.4g} MB)"
    message = f"too large: over {most}, the most one message may have"
    error = types.ErrorData(code=TOO_LARGE, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def sdk_readable(data: bytes, request_id: RequestId) -> bytes:
    """The answer to a request as bytes the SDK's parser reads as `read_message` would:
    unchanged when it already can, an unreadable answer as our one-line error, and one that
    nests too deep for the SDK cut below SDK_DEPTH (what lies there is past any judgment)."""
    try:
        types.jsonrpc_message_adapter.validate_json(data, by_name=False)
        return data
    except ValueError:
        pass
    message = read_message(data, request_id)
    if isinstance(message, types.JSONRPCError) and message.error.code == UNREADABLE:
        return message.model_dump_json(by_alias=True, exclude_none=True).encode()
    return json.dumps(_cut(json.loads(data), SDK_DEPTH)).encode()


def _cut(value: Any, depth: int) -> Any:
    if not isinstance(value, dict | list):
        return value
    if depth == 0:
        return TOO_DEEP
    if isinstance(value, dict):
        return {key: _cut(item, depth - 1) for key, item in value.items()}
    return [_cut(item, depth - 1) for item in value]


_ANSWER_START = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")'
)


def answered_id(data: bytes) -> RequestId | None:
    """The id of an answer that starts `{"jsonrpc": "2.0", "id": ...` or `{"id": ...`."""
    match = _ANSWER_START.match(data[:512])
    if match is None or b'"method"' in data[: match.end()]:
        return None
    return json.loads(match.group(1))


def _problem(data: bytes) -> str:
    try:
        decoded = json.loads(data)
    except ValueError as e:
        return f"it is not JSON ({str(e)[:100]})"
    except RecursionError:
        return "it nests too deep"
    if not isinstance(decoded, dict):
        return f"it is {kind_of(decoded)}, not an object"
    if "result" in decoded:
        return f"its result is {kind_of(decoded['result'])}, not an object"
    if "error" in decoded:
        return "its error is not an object with a code and a message"
    return "it has neither a result nor an error"
