"""The SDK's ClientSession, with compiled output-schema validators kept across sessions.

The SDK compiles a tool's output schema (checking it against the JSON Schema metaschema
first) once per session, and this project opens a fresh session every turn: ~2.5 ms of
CPU per tool per turn for a schema that has not changed. Validators are kept for the life
of the process by the schema's canonical JSON, so a changed schema is compiled anew, and
an invalid one is never kept, so it is refused on every call, as the SDK does.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema.protocols import Validator
from mcp import ClientSession

VALIDATORS_KEPT = 256
_validators: dict[str, Validator] = {}


class ZorkClientSession(ClientSession):
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
