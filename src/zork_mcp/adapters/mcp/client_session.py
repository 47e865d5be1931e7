"""The SDK's ClientSession, naming us to servers, reading what servers answer item by item,
with compiled output-schema validators kept across sessions.

The SDK validates a whole `tools/list` or `tools/call` answer against its models, so one bad
tool or one content item of an unknown type costs the whole answer. `send_unvalidated` sends
a request as `send_request` does and returns the answer's JSON unvalidated, for the caller
to judge one item at a time (`listing`, `results`).

The SDK compiles a tool's output schema (checking it against the JSON Schema metaschema
first) once per session, and this project opens a fresh session every turn: ~2.5 ms of
CPU per tool per turn for a schema that has not changed. Validators are kept for the life
of the process by the schema's canonical JSON, so a changed schema is compiled anew, and
an invalid one is never kept, so it is refused on every call, as the SDK does.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
from jsonschema.protocols import Validator
from mcp import ClientSession
from mcp.shared.dispatcher import CallOptions
from mcp.shared.inbound import MCP_NAME_HEADER, encode_header_value
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from zork_mcp import __version__

VALIDATORS_KEPT = 256
CLIENT_INFO = types.Implementation(name="zork-mcp", version=__version__)
_validators: dict[str, Validator] = {}


class ZorkClientSession(ClientSession):
    """Says it is zork-mcp at this package's version in `initialize` (the SDK says `mcp`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("client_info", CLIENT_INFO)
        super().__init__(*args, **kwargs)

    async def initialize_at(self, version: str) -> types.InitializeResult:
        """The handshake proposing `version` (the SDK's `initialize` proposes its newest)."""
        if version == LATEST_HANDSHAKE_VERSION:
            return await self.initialize()
        params = types.InitializeRequestParams(
            protocol_version=version,
            capabilities=self._build_capabilities(version),
            client_info=self._client_info,
        )
        request = types.InitializeRequest(params=params)
        result = await self.send_request(request, types.InitializeResult)
        if result.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
            raise RuntimeError(f"the server answered protocol version {result.protocol_version}")
        self.adopt(result)
        await self.send_notification(types.InitializedNotification())
        return result

    async def send_unvalidated(
        self, request: types.ClientRequest, timeout_seconds: float | None = None
    ) -> dict[str, Any]:
        """The answer's result as JSON, unvalidated: what `send_request` sends, as it sends
        it (the era's stamp, the Mcp-Name header, the timeout), minus the result model."""
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
        """Tell the SDK what was listed (for output-schema validation and, in the stateless
        era, x-mcp-header mirroring); returns the tools it keeps."""
        listed = types.ListToolsResult(tools=tools)
        return list(self._absorb_tool_listing(listed, complete=True).tools)

    def _output_schema_validator(self, name: str, output_schema: dict[str, Any]) -> Validator:
        if (validator := self._tool_output_validators.get(name)) is not None:
            return validator  # this session's, kept valid by the SDK when a listing changes
        key = json.dumps(output_schema, sort_keys=True)
        validator = _validators.get(key)
        if validator is None:
            validator = super()._output_schema_validator(name, output_schema)
            if len(_validators) >= VALIDATORS_KEPT:
                del _validators[next(iter(_validators))]  # the oldest
            _validators[key] = validator
        self._tool_output_validators[name] = validator
        return validator
