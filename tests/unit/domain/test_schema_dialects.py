"""JSON Schema to Gemini's subset, over generated schemas (recursive refs included)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.domain.tools.schema_dialects import GEMINI_KEYWORDS, gemini_schema

TYPES = ["string", "integer", "number", "boolean", "object", "array"]
names = st.from_regex(r"[a-z]{1,6}", fullmatch=True)
extras = st.fixed_dictionaries(
    {},
    optional={
        "description": st.text(max_size=10),
        "$schema": st.just("https://json-schema.org/draft/2020-12/schema"),
        "additionalProperties": st.booleans(),
        "exclusiveMinimum": st.integers(),
        "uniqueItems": st.booleans(),
        "minimum": st.integers(),
        "format": st.sampled_from(["date-time", "uri"]),
        "title": st.text(max_size=5),
    },
)
types = st.sampled_from(TYPES) | st.lists(
    st.sampled_from([*TYPES, "null"]), min_size=1, max_size=3, unique=True
)
enums = st.lists(st.text(max_size=4), min_size=1, max_size=3) | st.lists(
    st.integers(), min_size=1, max_size=3
)


def schemas(refs: list[str]) -> st.SearchStrategy[dict]:
    leaf = st.builds(
        lambda extra, kind, enum, const: {
            **extra,
            **({"type": kind} if kind is not None else {}),
            **({"enum": enum} if enum is not None else {}),
            **({"const": const} if const is not None else {}),
        },
        extras,
        st.none() | types,
        st.none() | enums,
        st.none() | st.text(max_size=3) | st.integers(),
    )
    if refs:
        leaf = leaf | st.sampled_from(refs).map(lambda name: {"$ref": f"#/$defs/{name}"})
    return st.recursive(
        leaf,
        lambda inner: (
            st.builds(
                lambda props, required, extra: {
                    **extra,
                    "type": "object",
                    "properties": props,
                    "required": required,
                },
                st.dictionaries(names, inner, max_size=3),
                st.lists(names, max_size=3),
                extras,
            )
            | st.builds(lambda items: {"type": "array", "items": items}, inner)
            | st.builds(lambda options: {"anyOf": options}, st.lists(inner, min_size=1, max_size=2))
        ),
        max_leaves=8,
    )


@st.composite
def documents(draw) -> dict:
    defined = draw(st.lists(names, max_size=3, unique=True))
    definitions = {name: draw(schemas(defined)) for name in defined}
    root = draw(schemas(defined))
    return {**root, "$defs": definitions} if definitions else root


def walk(node: dict, path: str = "$"):
    yield path, node
    for name, sub in node.get("properties", {}).items():
        yield from walk(sub, f"{path}.{name}")
    if isinstance(node.get("items"), dict):
        yield from walk(node["items"], f"{path}[]")
    for i, option in enumerate(node.get("anyOf", [])):
        yield from walk(option, f"{path}|{i}")


def resolved(node: dict, definitions: dict) -> dict:
    seen: set[str] = set()
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        node = rest if name in seen else {**definitions.get(name, {}), **rest}
        seen.add(name)
    return node


@settings(deadline=None)
@given(documents())
def test_only_gemini_keywords_survive_and_the_meaning_stays(document):
    original = copy.deepcopy(document)
    reduced = gemini_schema(document)
    assert document == original, "the MCP schema is not changed"
    for path, node in walk(reduced):
        assert set(node) <= GEMINI_KEYWORDS, path
        if "type" in node:
            assert node["type"] in TYPES, path
        if "enum" in node:
            assert node["enum"] and all(isinstance(v, str) for v in node["enum"]), path
        assert set(node.get("required", [])) <= set(node.get("properties", {})), path


@settings(deadline=None)
@given(documents())
def test_the_top_level_keeps_types_nullability_properties_and_text(document):
    reduced = gemini_schema(document)
    source = resolved(document, document.get("$defs", {}))
    kind = source.get("type")
    if isinstance(kind, list):
        non_null = [k for k in kind if k != "null"]
        assert reduced["type"] == (non_null[0] if non_null else "string")
        assert reduced.get("nullable", False) == ("null" in kind)
    elif kind is not None:
        assert reduced["type"] == kind and "nullable" not in reduced
    assert set(reduced.get("properties", {})) == set(source.get("properties", {}))
    if "description" in source:
        assert reduced["description"] == source["description"]
    enum, const = source.get("enum"), source.get("const")
    if isinstance(const, str):
        assert reduced["enum"] == [const]
    elif const is None and enum is not None and all(isinstance(v, str) for v in enum):
        assert reduced["enum"] == enum


def test_draft_07_definitions_const_and_items_are_translated():
    schema = {
        "definitions": {"Kind": {"type": ["string", "null"], "const": "lamp"}},
        "type": "object",
        "properties": {
            "kind": {"$ref": "#/definitions/Kind"},
            "tags": {"type": "array", "items": {"type": ["integer", "null"]}},
            "pick": {"enum": ["a", "b"], "const": "a"},
            "any": {"enum": ["a", "b"]},
        },
    }
    assert gemini_schema(schema) == {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "nullable": True, "enum": ["lamp"]},
            "tags": {"type": "array", "items": {"type": "integer", "nullable": True}},
            "pick": {"enum": ["a"]},
            "any": {"enum": ["a", "b"]},
        },
    }


def test_a_recursive_schema_is_cut_where_it_meets_itself():
    tree = {
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
        "$ref": "#/$defs/Node",
    }
    reduced, depth = gemini_schema(tree), 0
    while "child" in reduced.get("properties", {}):
        reduced, depth = reduced["properties"]["child"], depth + 1
    assert depth == 1 and reduced == {}


def test_each_option_of_an_any_of_is_reduced_and_required_names_stay_beside_it():
    schema = {
        "$defs": {"Count": {"type": "integer", "exclusiveMinimum": 0}},
        "type": "object",
        "properties": {
            "size": {"anyOf": [{"type": ["string", "null"]}, {"$ref": "#/$defs/Count"}, True]},
            "name": {"type": "string"},
        },
        "required": ["size", "name"],
    }
    assert gemini_schema(schema) == {
        "type": "object",
        "properties": {
            "size": {"anyOf": [{"type": "string", "nullable": True}, {"type": "integer"}, {}]},
            "name": {"type": "string"},
        },
        "required": ["size", "name"],
    }


def test_required_keeps_only_the_names_of_properties_that_are_there():
    assert gemini_schema({"required": ["a"]}) == {"required": []}
    assert gemini_schema({"required": "a", "properties": {"a": {}}}) == {
        "required": [],
        "properties": {"a": {}},
    }
    assert gemini_schema({"properties": {"a": {}}, "required": ["a", "b", 3]}) == {
        "properties": {"a": {}},
        "required": ["a"],
    }


def test_const_narrows_an_enum_whichever_comes_first_and_an_enum_that_is_no_list_is_dropped():
    assert gemini_schema({"const": "a", "enum": ["a", "b"]}) == {"enum": ["a"]}
    assert gemini_schema({"enum": ["a", "b"], "const": "a"}) == {"enum": ["a"]}
    assert gemini_schema({"enum": "ab"}) == {}


def test_a_reference_to_a_reference_is_followed_to_the_end():
    schema = {
        "$defs": {
            "Alias": {"$ref": "#/$defs/Name", "description": "a name"},
            "Name": {"type": "string"},
        },
        "$ref": "#/$defs/Alias",
    }
    assert gemini_schema(schema) == {"type": "string", "description": "a name"}


def test_a_reference_that_names_nothing_leaves_the_rest_of_the_node():
    assert gemini_schema({"$ref": "nowhere", "type": "integer"}) == {"type": "integer"}
    assert gemini_schema({"$ref": "#/$defs/Missing"}) == {}


@pytest.mark.parametrize(
    ("kinds", "reduced"),
    [
        (["null"], {"type": "string", "nullable": True}),
        (["integer"], {"type": "integer"}),
        (["null", "number", "string"], {"type": "number", "nullable": True}),
        ([], {"type": "string"}),
    ],
)
def test_a_list_of_types_becomes_its_first_non_null_type_nullable_if_null_was_listed(
    kinds, reduced
):
    assert gemini_schema({"type": kinds}) == reduced
