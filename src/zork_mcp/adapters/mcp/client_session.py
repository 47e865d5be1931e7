"""The SDK's ClientSession, naming us to servers, with compiled output-schema validators
kept across sessions.

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

from zork_mcp import __version__

VALIDATORS_KEPT = 256
CLIENT_INFO = types.Implementation(name="zork-mcp", version=__version__)
_validators: dict[str, Validator] = {}


class ZorkClientSession(ClientSession):
    """Says it is zork-mcp at this package's version in `initialize` (the SDK says `mcp`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("client_info", CLIENT_INFO)
        super().__init__(*args, **kwargs)

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
