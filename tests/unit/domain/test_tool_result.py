"""ToolCallResult (requirement 11): success and error shapes, always JSON-serialisable."""

from __future__ import annotations

import dataclasses
import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.domain.messages import tool_message
from zork_mcp.domain.tool_result import ToolCallResult, jsonable

leaves = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary(max_size=20)
)
awkward = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.frozensets(st.integers(), max_size=3)
        | st.dictionaries(st.integers() | st.text(max_size=5) | st.none(), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300)
@given(awkward, st.booleans(), st.none() | st.text())
def test_to_dict_is_always_strict_json(content, is_error, message):
    result = ToolCallResult(content, is_error, message)
    text = json.dumps(result.to_dict(), allow_nan=False)
    assert set(json.loads(text)) == ({"error", "content"} if is_error else {"content"})


@settings(max_examples=200)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    )
)
def test_json_content_survives_unchanged(content):
    assert ToolCallResult.success(content).to_dict() == {"content": content}


def test_error_results_carry_their_message():
    result = ToolCallResult.failure("it broke", content={"partial": 1})
    assert result.is_error and result.to_dict() == {"error": "it broke", "content": {"partial": 1}}


def test_odd_objects_cycles_and_non_finite_numbers_are_made_safe():
    @dataclasses.dataclass
    class Point:
        x: int

    loop: list = [1]
    loop.append(loop)
    value = jsonable({"p": Point(3), "loop": loop, "nan": math.nan, 1: object.__name__})
    assert value["p"] == {"x": 3} and value["loop"] == [1, "<cycle>"]
    assert value["nan"] == "nan" and value["1"] == "object"


def test_results_enter_history_as_json_text():
    message = tool_message("call_1", ToolCallResult.success({"é": "ü"}))
    expected = '{"content": {"é": "ü"}}'
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": expected}


@given(
    st.one_of(st.text(), st.binary(), st.lists(st.text(), max_size=50)),
    st.integers(1_000, 5_000),
    st.booleans(),
)
def test_a_bounded_result_fits_and_keeps_its_beginning(content, limit, failed):
    content = content * 40 if content else content
    result = (
        ToolCallResult.failure("x" * 3000, content) if failed else ToolCallResult.success(content)
    )
    bounded = result.bounded(limit)
    assert len(bounded.to_json()) <= limit
    assert bounded.is_error == result.is_error
    if len(result.to_json()) <= limit:
        assert bounded == result
    else:
        text = (
            content
            if isinstance(content, str)
            else json.dumps(jsonable(content), ensure_ascii=False)
        )
        kept, note = bounded.content.rsplit("\n[truncated: first ", 1)
        assert text.startswith(kept) and note.endswith(f"of {len(text)} characters shown]")


def test_a_bounded_result_keeps_unicode_and_cuts_a_long_error_too():
    content = ["é" * 10_000, {"ü": 1}]
    bounded = ToolCallResult.failure("x" * 2000, content).bounded(4000)
    assert bounded.content.startswith('["ééé') and len(bounded.to_json()) <= 4000
    assert bounded.error_message == "x" * 1000 + " [truncated]"
    short = ToolCallResult.failure("short", "y" * 10_000).bounded(4000)
    assert short.error_message == "short"


def test_an_error_message_at_the_limit_is_kept_whole():
    exact = ToolCallResult.failure("e" * 1000, "z" * 10_000).bounded(4000)
    assert exact.error_message == "e" * 1000


def test_a_preview_is_what_a_person_reads_cut_saying_how_much_was_left():
    assert ToolCallResult.success("plain text").preview(100) == "plain text"
    assert ToolCallResult.success({"a": [1]}).preview(100) == '{\n "a": [\n  1\n ]\n}'
    assert ToolCallResult.failure("s.t: refused", "ignored").preview(100) == "s.t: refused"
    assert ToolCallResult.success("x" * 30).preview(10) == "x" * 10 + "\n[20 more characters]"
