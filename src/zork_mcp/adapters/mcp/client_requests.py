"""What our client answers when a server asks it for something: its roots (the episode's
folder, for the memory server), in either MCP era, and nothing else.

In the handshake era a server sends `roots/list` in the middle of a call, and the SDK's
session answers it through `list_roots_callback`. In the stateless era `tools/call` answers
`input_required` with the requests inside; `answered` fulfils them and sends the call again
with the responses and the server's state, at most MAX_ROUNDS times, all within the call's
timeout. Either way, a request for anything but roots (sampling, elicitation), or for roots
when this client names none, is refused at once with an error: no call waits on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import mcp.types as types
from mcp import InputRequiredRoundsExceededError
from mcp.client.session import ClientRequestContext, ListRootsFnT
from mcp.shared.exceptions import MCPError as SdkMCPError
from pydantic import ValidationError

from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.sdk import run_input_required_driver
from zork_mcp.adapters.mcp.sdk_errors import REQUEST_TIMEOUT
from zork_mcp.domain.errors import MCPToolCallError
from zork_mcp.domain.servers.roots import Root

MAX_ROUNDS = 3  # our memory server asks once; a server that keeps asking gets an error


def roots_callback(roots: Sequence[Root]) -> ListRootsFnT | None:
    """The answer to `roots/list` (None, the SDK's refusal, when there are no roots); with
    it, the session declares the roots capability."""
    if not roots:
        return None
    listed = [types.Root(uri=root.uri, name=root.name) for root in roots]  # type: ignore[arg-type]
    result = types.ListRootsResult(roots=listed)

    async def list_roots(_: ClientRequestContext) -> types.ListRootsResult:
        return result

    return list_roots


def asks_for_input(answer: Any) -> bool:
    """A `tools/call` answer of the stateless era that asks the client for input first."""
    return isinstance(answer, Mapping) and answer.get("resultType") == "input_required"


async def answered(
    session: ZorkClientSession,
    params: types.CallToolRequestParams,
    answer: Mapping[str, Any],
    deadline: float,
    tool: str,
) -> Any:
    """The call's final answer, once the server's input requests are answered before
    `deadline` (anyio's clock); raises MCPToolCallError naming `tool` when they cannot be,
    and the SDK's error when the call sent again fails."""

    async def dispatch(
        key: str, request: types.InputRequest
    ) -> types.InputResponse | types.ErrorData:
        if not isinstance(request, types.ListRootsRequest):
            return types.ErrorData(
                code=types.INVALID_REQUEST, message=f"{request.method} is not given"
            )
        context = ClientRequestContext(session=session, request_id=key)
        return await session.dispatch_input_request(context, request)

    async def retry(responses: types.InputResponses | None, state: str | None) -> Any:
        left = deadline - anyio.current_time()
        if left <= 0:
            raise _RetryFailed(SdkMCPError(REQUEST_TIMEOUT, "timed out answering input requests"))
        again = params.model_copy(update={"input_responses": responses, "request_state": state})
        try:
            reply = await session.send_unvalidated(types.CallToolRequest(params=again), left)
        except SdkMCPError as e:
            raise _RetryFailed(e) from e
        return _input_required(reply, tool) if asks_for_input(reply) else reply

    try:
        return await run_input_required_driver(
            _input_required(answer, tool), dispatch=dispatch, retry=retry, max_rounds=MAX_ROUNDS
        )
    except _RetryFailed as failed:
        raise failed.error from None
    except InputRequiredRoundsExceededError:
        raise MCPToolCallError(
            f"{tool}: the server asked for input more than {MAX_ROUNDS} times"
        ) from None
    except SdkMCPError as refused:  # a request `dispatch` refused
        reason = refused.error.message
        raise MCPToolCallError(
            f"{tool}: the server asked this client for input it does not give ({reason}); "
            "it gives only its roots, and only when it has some"
        ) from None


def _input_required(answer: Mapping[str, Any], tool: str) -> types.InputRequiredResult:
    try:
        return types.InputRequiredResult.model_validate(answer, by_name=False)
    except ValidationError:
        raise MCPToolCallError(
            f"{tool}: the server asked for input in a form this client cannot read"
        ) from None


class _RetryFailed(Exception):
    """The call sent again failed: its SDK error, carried past the driver unchanged."""

    def __init__(self, error: SdkMCPError) -> None:
        super().__init__(str(error))
        self.error = error
