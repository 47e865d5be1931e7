"""JSON Schema reduced to what a provider accepts.

Gemini's function declarations and response schemas take an OpenAPI-style subset: no
`$schema`, `$ref`, `additionalProperties`, `exclusiveMinimum`, `propertyNames`,
`uniqueItems` and the like; one `type` (with `nullable`) instead of a list of types; enums
of strings only. MCP servers send full JSON Schema, so it is translated here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

GEMINI_KEYWORDS = frozenset(
    {
        "type",
        "format",
        "description",
        "nullable",
        "enum",
        "items",
        "properties",
        "required",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "anyOf",
        "propertyOrdering",
        "minProperties",
        "maxProperties",
    }
)
NESTED = frozenset({"items", "properties", "anyOf", "enum", "type"})  # reduced, never copied


def gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema in Gemini's subset; `$ref`s into `$defs`/`definitions` are inlined. Total
    over any JSON: a subschema Gemini cannot express (`true`, a keyword of the wrong type)
    becomes the widest it can, never an error."""
    definitions = {**_mapping(schema.get("definitions")), **_mapping(schema.get("$defs"))}
    return _reduce(schema, definitions, frozenset())


def _reduce(node: Any, definitions: Mapping[str, Any], expanding: frozenset[str]) -> dict[str, Any]:
    if not isinstance(node, Mapping):
        return {}  # a boolean schema: anything (true), or nothing Gemini can say (false)
    node, expanding = _resolve(node, definitions, expanding)
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            result.update(_single_type(value))
        elif key == "const":
            result.update(_enum([value]))
        elif key == "enum":
            if "const" not in node and isinstance(value, list):  # const is the narrower
                result.update(_enum(value))
        elif key == "properties" and isinstance(value, Mapping):
            result[key] = {
                name: _reduce(sub, definitions, expanding) for name, sub in value.items()
            }
        elif key == "items" and isinstance(value, Mapping):
            result[key] = _reduce(value, definitions, expanding)
        elif key == "anyOf" and isinstance(value, list):
            result[key] = [_reduce(option, definitions, expanding) for option in value]
        elif key in GEMINI_KEYWORDS - NESTED and key not in result:
            result[key] = value
    if "required" in result:
        result["required"] = _required(result["required"], result.get("properties", {}))
    return result


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _required(names: Any, properties: Mapping[str, Any]) -> list[str]:
    if not isinstance(names, list):
        return []
    return [name for name in names if isinstance(name, str) and name in properties]


def _resolve(
    node: Mapping[str, Any], definitions: Mapping[str, Any], expanding: frozenset[str]
) -> tuple[Mapping[str, Any], frozenset[str]]:
    """The node with its `$ref` inlined, and the definitions now expanded on this path.

    A definition met again inside itself (a recursive schema: a tree, a linked list) is cut
    there, so the result stays finite and small however the definitions branch.
    """
    reference = node.get("$ref")
    if not isinstance(reference, str):
        return node, expanding
    rest = {key: value for key, value in node.items() if key != "$ref"}
    name = reference.rsplit("/", 1)[-1]
    target = definitions.get(name)
    if name in expanding or not isinstance(target, Mapping):
        return rest, expanding
    return _resolve({**target, **rest}, definitions, expanding | {name})


def _single_type(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"type": value}
    if not isinstance(value, list):
        return {}
    kinds = [kind for kind in value if isinstance(kind, str) and kind != "null"]
    result: dict[str, Any] = {"type": kinds[0] if kinds else "string"}
    if len(kinds) < len(value):
        result["nullable"] = True
    return result


def _enum(values: list[Any]) -> dict[str, Any]:
    if values and all(isinstance(value, str) for value in values):
        return {"enum": list(values)}
    return {}
