"""Tool lists judged tool by tool (issue 35): what the boundary accepts, every provider takes.

A listed tool is judged by the domain (name, object schema, depth), by the MCP SDK's model
and by the JSON Schema metaschema (adapters/mcp/listing.py). The property: whatever a server
sends, judging never raises, and a tool that passes is one every provider's strict peer
accepts in a request, after the provider limits have picked what a request offers.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.provider_exchange import PROTOCOLS, exchange
from tests.support.strategies import TEXT, input_schemas, json_values, tool_names
from zork_mcp.adapters.llm.fake import text_reply
from zork_mcp.adapters.mcp.listing import schema_verdict
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.llm.messages import LLMRequest, ToolChoice, system_message, user_message
from zork_mcp.domain.tools.schema_dialects import gemini_schema
from zork_mcp.domain.tools.tool_judgment import (
    MAX_DESCRIPTION_CHARS,
    MAX_SCHEMA_DEPTH,
    ToolRejection,
    judge_tool,
    nesting_depth,
    shown_name,
)
from zork_mcp.domain.tools.tool_offer import choose_offered
from zork_mcp.domain.tools.tool_schema import ToolSpec, tool_definitions


def nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def levels(depth: int) -> dict[str, Any]:
    """An object schema exactly `depth` containers deep: its default is nested lists."""
    value: list[Any] = []
    for _ in range(depth - 2):
        value = [value]
    return {"type": "object", "default": value}


names = st.one_of(tool_names, st.just(""), st.integers(), st.none(), st.text(max_size=3))
descriptions = st.one_of(
    st.none(), st.integers(), st.text(TEXT, max_size=30), st.integers(1000, 3000).map("d".__mul__)
)
schemas = st.one_of(
    input_schemas(),
    json_values,
    st.builds(nested, st.integers(0, 3 * MAX_SCHEMA_DEPTH)),
    st.fixed_dictionaries({"type": st.just("object"), "required": json_values}),
    st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(tool_names, json_values)}
    ),
)
likely = st.fixed_dictionaries(
    {"name": tool_names, "description": descriptions, "inputSchema": input_schemas()}
)
entries = st.one_of(
    likely,
    st.fixed_dictionaries({"name": names, "description": descriptions, "inputSchema": schemas}),
    st.fixed_dictionaries({"name": names}),
    json_values,
)


def accepted(entry: Any) -> ToolSpec | None:
    judged = judge_tool("srv", entry)
    if isinstance(judged, ToolRejection):
        return None
    return judged if schema_verdict(_json(judged.input_schema)) is None else None


def _json(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(entries, min_size=1, max_size=6), st.integers(0, 200))
def test_a_tool_the_boundary_accepts_is_one_every_provider_accepts(listed, copies):
    """`copies` more of the first accepted tool (renamed): servers that list hundreds."""
    specs = [spec for entry in listed if (spec := accepted(entry)) is not None]
    if not specs:
        return
    specs += [replace(specs[0], name=f"{specs[0].name}{n}") for n in range(copies)]
    request_messages = (system_message("s"), user_message("u"))
    for protocol in PROTOCOLS:
        provider = next(p for p in PROVIDERS.values() if protocol in p.protocols)
        offer = choose_offered(specs, provider.resolve().offer_limits())
        tools = tool_definitions(offer.offered)
        if tools:
            request = LLMRequest(request_messages, tools=tools, tool_choice=ToolChoice.AUTO)
            exchange(protocol, request, [text_reply("ok")])  # asserts the peer took it


@given(entries)
def test_judging_never_raises_and_says_why_in_one_line(entry):
    judged = judge_tool("srv", entry)
    if isinstance(judged, ToolRejection):
        assert judged.server == "srv" and "\n" not in judged.reason
        assert len(judged.tool) <= 83
    else:
        assert judged.name and len(judged.description) <= MAX_DESCRIPTION_CHARS
        gemini_schema(judged.input_schema)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("tool", "the listing entry is a string, not an object"),
        (True, "the listing entry is a boolean, not an object"),
        ({"name": 1.5, "inputSchema": {}}, "its name is a number, not a string"),
        ({"name": b"t", "inputSchema": {}}, "its name is bytes, not a string"),  # in-process
        ({"name": "", "inputSchema": {}}, "its name is empty"),
        ({"name": None, "inputSchema": {}}, "its name is null, not a string"),
        ({"name": {"en": "t"}, "inputSchema": {}}, "its name is an object, not a string"),
        ({"name": "x" * 1001, "inputSchema": {}}, "its name has 1001 characters (at most 1000)"),
        (
            {"name": "a\ud800", "inputSchema": {}},
            "its name is not valid Unicode (it holds a lone surrogate)",
        ),
        ({"name": "t"}, "it has no inputSchema (MCP requires an object schema)"),
        ({"name": "t", "inputSchema": None}, "its inputSchema is null, not an object schema"),
        ({"name": "t", "inputSchema": "{}"}, "its inputSchema is a string, not an object schema"),
        (
            {"name": "t", "inputSchema": {"type": "array"}},
            "its inputSchema has type 'array'; a tool's input must be an object schema",
        ),
        (
            {"name": "t", "inputSchema": {"properties": []}},
            "its inputSchema's 'properties' is a list, not an object",
        ),
        (
            {"name": "t", "inputSchema": {"properties": {"a": 1}}},
            "its inputSchema holds a number where a schema must be",
        ),
        (
            {"name": "t", "inputSchema": {"required": ["a", 1]}},
            "its inputSchema's 'required' is not a list of property names",
        ),
        (
            {"name": "t", "inputSchema": nested(MAX_SCHEMA_DEPTH)},
            "its inputSchema nests over 64 levels deep",
        ),
        (
            {"name": "t", "inputSchema": levels(MAX_SCHEMA_DEPTH + 1)},
            "its inputSchema nests over 64 levels deep",
        ),
    ],
)
def test_each_rule_says_what_was_wrong(entry, reason):
    judged = judge_tool("srv", entry)
    assert isinstance(judged, ToolRejection) and judged.reason == reason


BAD = {"required": 5}  # a schema the rule refuses, wherever it sits


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"bad": BAD, "ok": True}},  # the walk meets True first, then goes on
        {"properties": {"bad": BAD, "ok": {"type": "string"}}},
        {"patternProperties": {"^x": BAD}},
        {"$defs": {"d": BAD}},
        {"definitions": {"d": BAD}},
        {"dependentSchemas": {"a": BAD}},
        {"items": BAD},
        {"additionalProperties": BAD},
        {"not": BAD},
        {"if": BAD},
        {"then": BAD},
        {"else": BAD},
        {"anyOf": [BAD, True]},
        {"allOf": [True, BAD]},
        {"oneOf": [BAD]},
        {"prefixItems": [False, BAD]},
    ],
    ids=lambda schema: next(iter(schema)),
)
def test_a_bad_subschema_is_found_wherever_it_sits(schema):
    judged = judge_tool("srv", {"name": "t", "inputSchema": schema})
    assert isinstance(judged, ToolRejection)
    assert judged.reason.endswith("its inputSchema's 'required' is not a list of property names")


def test_a_rejection_names_its_server_and_the_tool_as_listed():
    assert judge_tool("srv", "tool") == ToolRejection(
        "srv", "", "the listing entry is a string, not an object"
    )
    rejected = judge_tool("srv", {"name": "look\n" + "x" * 100})
    assert isinstance(rejected, ToolRejection)
    assert (rejected.server, rejected.tool) == ("srv", "look\\x0a" + "x" * 72 + "...")


def test_what_is_valid_but_odd_is_kept():
    for entry in (
        {"name": "with space/and.dots ünï", "inputSchema": {}},  # no type: an object schema
        {"name": "x" * 1000, "inputSchema": {"type": "object"}},  # the longest name taken
        {"name": "t", "inputSchema": {"type": "object", "properties": {"a": True}}},
        {"name": "t", "inputSchema": nested(MAX_SCHEMA_DEPTH // 2 - 1)},
        {"name": "t", "inputSchema": levels(MAX_SCHEMA_DEPTH)},  # the deepest schema taken
    ):
        assert isinstance(judge_tool("srv", entry), ToolSpec), entry


def test_a_long_description_is_cut_to_what_openai_takes():
    judged = judge_tool("srv", {"name": "t", "description": "d" * 5000, "inputSchema": {}})
    assert isinstance(judged, ToolSpec)
    assert len(judged.description) == MAX_DESCRIPTION_CHARS
    assert judged.description.endswith(" [cut]")


def test_a_description_of_exactly_the_limit_is_kept_whole_and_a_non_text_one_is_none():
    whole = judge_tool("srv", {"name": "t", "description": "d" * 1024, "inputSchema": {}})
    assert isinstance(whole, ToolSpec) and whole.description == "d" * 1024
    odd = judge_tool("srv", {"name": "t", "description": 42, "inputSchema": {}})
    assert isinstance(odd, ToolSpec) and odd.description == ""


def test_nesting_depth_stops_counting_at_its_limit():
    assert nesting_depth(nested(1000), 10) == 10


def test_nesting_depth_counts_every_branch_past_a_scalar():
    assert nesting_depth(levels(MAX_SCHEMA_DEPTH), 1000) == MAX_SCHEMA_DEPTH
    assert nesting_depth([[[]], 1], 10) == 3  # the scalar is met first, then the lists
    assert nesting_depth({"a": [1, {"b": []}]}, 100) == 4
    assert nesting_depth("flat", 5) == 0


def test_a_shown_name_is_printable_and_short():
    assert shown_name("a\nb\x00" + "c" * 200) == "a\\x0ab\\x00" + "c" * 70 + "..."
    assert shown_name("n" * 80) == "n" * 80  # at the limit: whole
    assert shown_name(42) == ""
    assert shown_name("\ud800") == "\\ud800"


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "object", "properties": {"a": {"type": 5}}}, "properties/a/type"),
        ({"type": "object", "minProperties": -1}, "minProperties"),
    ],
)
def test_the_metaschema_refuses_what_providers_refuse(schema, problem):
    verdict = schema_verdict(_json(schema))
    assert verdict is not None and problem in verdict
