"""Canonical names, schema translation and per-provider wire names (requirement 8)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.domain.tools.tool_schema import (
    ToolDefinition,
    ToolSpec,
    canonical_name,
    openai_function_tool,
    split_canonical_name,
    tool_definition,
    tool_definitions,
)
from zork_mcp.domain.tools.wire_names import (
    ANTHROPIC_RULE,
    GEMINI_RULE,
    OPENAI_RULE,
    WireNameMap,
    readable_wire_name,
)

server_names = st.text(min_size=1, max_size=40).filter(lambda s: "." not in s)
tool_names = st.text(min_size=1, max_size=80)
canonical_names = st.builds(canonical_name, server_names, tool_names)
RULES = [OPENAI_RULE, ANTHROPIC_RULE, GEMINI_RULE]


@settings(max_examples=200)
@given(server_names, tool_names)
def test_canonical_names_split_back_to_server_and_tool(server, tool):
    name = canonical_name(server, tool)
    assert name == f"{server}.{tool}"
    assert split_canonical_name(name) == (server, tool)


@pytest.mark.parametrize("bad", ["think", ".think", "box.", ""])
def test_names_without_server_and_tool_are_rejected_for_routing(bad):
    with pytest.raises(ValueError, match="Expected format"):
        split_canonical_name(bad)


def test_translation_maps_input_schema_to_parameters():
    schema = {
        "type": "object",
        "properties": {"thought": {"type": "string"}},
        "required": ["thought"],
    }
    tool = tool_definition(ToolSpec("thoughtbox", "think", "Structured reasoning", schema))
    assert tool == ToolDefinition("thoughtbox.think", "Structured reasoning", schema)
    assert openai_function_tool(tool) == {
        "type": "function",
        "function": {
            "name": "thoughtbox.think",
            "description": "Structured reasoning",
            "parameters": schema,
        },
    }


def test_an_empty_schema_becomes_an_empty_object_schema():
    tool = tool_definition(ToolSpec("s", "t", "", {}))
    assert tool.parameters == {"type": "object", "properties": {}}


def test_every_tool_of_a_server_is_translated_in_order():
    specs = [ToolSpec("s", name) for name in ("b", "a", "c")]
    assert [tool.name for tool in tool_definitions(specs)] == ["s.b", "s.a", "s.c"]


@settings(max_examples=300)
@given(st.sampled_from(RULES), st.lists(canonical_names, min_size=1, max_size=12))
def test_wire_names_are_valid_unique_and_map_back_exactly(rule, names):
    mapping = WireNameMap(names, rule)
    wires = [mapping.to_wire(name) for name in set(names)]
    assert len(set(wires)) == len(wires)
    for name, wire in zip(set(names), wires, strict=True):
        assert rule.pattern.match(wire), (rule.provider, wire)
        assert mapping.to_canonical(wire) == name


@settings(max_examples=200)
@given(st.sampled_from(RULES), st.lists(canonical_names, min_size=1, max_size=8), st.randoms())
def test_wire_names_do_not_depend_on_order(rule, names, random):
    shuffled = list(names)
    random.shuffle(shuffled)
    assert WireNameMap(names, rule).items() == WireNameMap(shuffled, rule).items()


def test_readable_names_stay_readable_where_valid():
    assert WireNameMap(["thoughtbox.think"]).to_wire("thoughtbox.think") == "thoughtbox__think"
    assert WireNameMap(["thoughtbox.think"], GEMINI_RULE).to_wire("thoughtbox.think") == (
        "thoughtbox.think"
    )
    assert readable_wire_name("my server.do it!", OPENAI_RULE) == "my_server__do_it_"


def test_colliding_readable_names_both_get_distinct_hashed_names():
    mapping = WireNameMap(["a.b_c", "a_b.c", "a.b.c"], OPENAI_RULE)
    wires = {name: mapping.to_wire(name) for name in ("a.b_c", "a_b.c", "a.b.c")}
    assert len(set(wires.values())) == 3
    assert all(mapping.to_canonical(wire) == name for name, wire in wires.items())


def test_long_names_are_cut_to_the_limit_with_a_hash():
    long_name = "server." + "x" * 200
    wire = WireNameMap([long_name]).to_wire(long_name)
    assert len(wire) == 64 and OPENAI_RULE.pattern.match(wire)


def test_an_unknown_wire_name_maps_to_none():
    assert WireNameMap(["s.t"]).to_canonical("s__u") is None


def test_gemini_names_start_with_a_letter_or_underscore():
    assert readable_wire_name("1srv.tool", GEMINI_RULE) == "_1srv.tool"
    assert readable_wire_name("srv.tool", GEMINI_RULE) == "srv.tool"


def test_a_name_of_exactly_the_limit_stays_readable():
    name = "s." + "t" * 61  # 64 characters once the dot becomes "__"
    wire = WireNameMap([name], OPENAI_RULE).to_wire(name)
    assert wire == "s__" + "t" * 61 and len(wire) == 64


LONG = "srv.tool_" + "x" * 70  # too long for OpenAI: its wire name is cut and hashed


def hashed_as(canonical: str, digits: int) -> str:
    """The documented form: the readable name cut, `_`, the first hex digits of its SHA-256."""
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:digits]
    return f"{readable_wire_name(canonical, OPENAI_RULE)[: 64 - digits - 1]}_{digest}"


def test_a_hash_that_collides_with_a_listed_name_is_lengthened_until_unique():
    taken = hashed_as(LONG, 8)  # another server lists a tool named as LONG's first hash
    names = WireNameMap([LONG, taken])
    assert (names.to_wire(LONG), names.to_wire(taken)) == (hashed_as(LONG, 12), taken)
    assert names.to_canonical(hashed_as(LONG, 12)) == LONG


def test_the_longest_hash_that_fits_is_tried_before_giving_up():
    taken = [hashed_as(LONG, digits) for digits in range(8, 56, 4)]
    assert WireNameMap([LONG, *taken]).to_wire(LONG) == hashed_as(LONG, 56)
    with pytest.raises(ValueError, match=r"^cannot give unique openai wire names to \["):
        WireNameMap([LONG, *taken, hashed_as(LONG, 56)])


def test_a_canonical_name_needs_a_tool_name_and_says_so():
    with pytest.raises(ValueError, match=r"^tool name must be non-empty$"):
        canonical_name("box", "")
