"""Every use of the MCP SDK's private parts (an underscore name, or an internal sequence the
SDK does not document), each with why we need it and what the public API lacks.

Nothing else in src/ reaches behind the SDK's public names (but servers/stdio.py, which may
not import adapters); a canary test (tests/unit/adapters/mcp/test_sdk_canary.py) fails when
an SDK release changes one of these, and another when a module elsewhere starts to.
"""

from __future__ import annotations

from typing import Any

import mcp.types as types
from jsonschema.protocols import Validator
from mcp import ClientSession

# The stateless era's loop over a `tools/call` answered `input_required`: dispatch the
# embedded requests, send the call again, at most `max_rounds` times. Used by
# `client_requests.answered`. The public `Client.call_tool` runs it only inside its own
# call, over answers it has validated whole; we send the call unvalidated
# (`send_unvalidated`), so one odd content item costs that item alone, and drive the loop.
from mcp.client._input_required import run_input_required_driver

# `Client(mode="auto")`'s era probe: server/discover, then initialize wherever that is not
# positive evidence of a modern server. Used by `era.Eras.speak`. The public `Client` runs it
# only inside its own connect, over its own transport and session; we run it on our own
# session over our streams, once per server per episode.
from mcp.client._probe import negotiate_auto

# The SDK's default timeouts for a Streamable HTTP client (30 s, and 300 s to read an SSE
# stream). Used by `http.tool_server`. The public way to get them, a client made by
# `create_mcp_http_client` (in the same private module), takes no transport of ours
# (`ReadableAnswers`, the shared TLS context, the environment's proxy).
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
from mcp.shared.dispatcher import CallOptions
from mcp.shared.inbound import MCP_NAME_HEADER, encode_header_value

__all__ = [
    "MCP_DEFAULT_SSE_READ_TIMEOUT",
    "MCP_DEFAULT_TIMEOUT",
    "SdkClientSession",
    "negotiate_auto",
    "run_input_required_driver",
]


class SdkClientSession(ClientSession):
    """The SDK's ClientSession, with each private member we use given a name of ours here:
    a subclass uses these names, never the SDK's."""

    @property
    def client_info(self) -> types.Implementation:
        """What the session says it is in `initialize` (`_client_info`): the public
        `initialize()` sends it, but a handshake at another version needs it too."""
        return self._client_info

    def capabilities_at(self, version: str) -> types.ClientCapabilities:
        """The capability ad `initialize()` would send at `version` (`_build_capabilities`):
        the public `initialize()` proposes only the newest handshake version, and a server
        pinned to an older one gets the same ad in our own InitializeRequest."""
        return self._build_capabilities(version)

    async def send_unvalidated(
        self, request: types.ClientRequest, timeout_seconds: float | None = None
    ) -> dict[str, Any]:
        """The answer's result as JSON, unvalidated: what `send_request` sends, as it sends
        it (the era's stamp, the Mcp-Name header, the timeout), minus the result model.

        The public `send_request` validates the whole answer against its model, so one bad
        tool in `tools/list` or one unknown content item in `tools/call` costs the whole
        answer. This repeats its undocumented first half: the private per-era `_stamp`, the
        `name_param` header, and the private `_dispatcher`'s raw send."""
        data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        opts: CallOptions = {}
        self._stamp(data, opts)
        headers = opts.setdefault("headers", {})
        key = type(request).name_param
        name = (data.get("params") or {}).get(key) if key else None
        if isinstance(name, str) and MCP_NAME_HEADER not in headers:
            headers[MCP_NAME_HEADER] = encode_header_value(name)
        if timeout_seconds is not None:
            opts["timeout"] = timeout_seconds
        return await self._dispatcher.send_raw_request(data["method"], data.get("params"), opts)

    def absorb_tools(self, tools: list[types.Tool]) -> list[types.Tool]:
        """Tell the SDK what was listed, as its `list_tools` does (`_absorb_tool_listing`),
        for output-schema validation and, in the stateless era, x-mcp-header mirroring;
        returns the tools it keeps. The public `list_tools` absorbs only an answer it has
        validated whole; ours are read unvalidated (`send_unvalidated`) and judged alone."""
        listed = types.ListToolsResult(tools=tools)
        return list(self._absorb_tool_listing(listed, complete=True).tools)

    @property
    def session_validators(self) -> dict[str, Validator]:
        """This session's compiled output-schema validators by tool name
        (`_tool_output_validators`), which the SDK evicts when a listing changes a schema.
        Public API has none: validators are compiled and kept per session, unseen."""
        return self._tool_output_validators

    def compiled_validator(self, name: str, output_schema: dict[str, Any]) -> Validator:
        """The SDK's own validator for `name` (its private `_output_schema_validator`): this
        session's, else the schema checked against its metaschema (RuntimeError when it is
        invalid), compiled and kept for this session."""
        return ClientSession._output_schema_validator(self, name, output_schema)

    def output_validator(self, name: str, output_schema: dict[str, Any]) -> Validator:
        """The validator `validate_tool_result` uses for `name`; a subclass may keep them
        longer than a session (the SDK's: `compiled_validator`)."""
        return self.compiled_validator(name, output_schema)

    def _output_schema_validator(self, name: str, output_schema: dict[str, Any]) -> Validator:
        # Overrides the SDK's private hook, which `validate_tool_result` calls for a compiled
        # validator: there is no public way to keep validators past one session.
        return self.output_validator(name, output_schema)
