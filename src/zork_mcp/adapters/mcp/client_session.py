"""The SDK's ClientSession, naming us to servers, handshaking at a pinned version, with
compiled output-schema validators kept across sessions.

The SDK compiles a tool's output schema (checking it against the JSON Schema metaschema
first) once per session, and this project opens a fresh session every turn: ~2.5 ms of
CPU per tool per turn for a schema that has not changed. Validators are kept for the life
of the process by the schema's canonical JSON, so a changed schema is compiled anew, and
an invalid one is never kept, so it is refused on every call, as the SDK does.

What reaches behind the SDK's public names (reading answers unvalidated with
`send_unvalidated`, absorbing a listing, the validator hook) is in `sdk.SdkClientSession`.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
from jsonschema.protocols import Validator
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from zork_mcp import __version__
from zork_mcp.adapters.mcp.sdk import SdkClientSession

VALIDATORS_KEPT = 256
CLIENT_INFO = types.Implementation(name="zork-mcp", version=__version__)
_validators: dict[str, Validator] = {}


class ZorkClientSession(SdkClientSession):
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
            capabilities=self.capabilities_at(version),
            client_info=self.client_info,
        )
        request = types.InitializeRequest(params=params)
        result = await self.send_request(request, types.InitializeResult)
        if result.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
            raise RuntimeError(f"the server answered protocol version {result.protocol_version}")
        self.adopt(result)
        await self.send_notification(types.InitializedNotification())
        return result

    def output_validator(self, name: str, output_schema: dict[str, Any]) -> Validator:
        """This session's validator for `name`, else the process's for the same schema, else
        the SDK's, compiled now and kept for both."""
        kept = self.session_validators
        if (validator := kept.get(name)) is not None:
            return validator  # this session's, kept valid by the SDK when a listing changes
        key = json.dumps(output_schema, sort_keys=True)
        validator = _validators.get(key)
        if validator is None:
            validator = self.compiled_validator(name, output_schema)
            if len(_validators) >= VALIDATORS_KEPT:
                del _validators[next(iter(_validators))]  # the oldest
            _validators[key] = validator
        kept[name] = validator
        return validator
