"""ToolCallResult (requirement 11): success and error shapes, always JSON-serialisable."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.domain.llm.messages import to_openai_dict, tool_message
from zork_mcp.domain.tools.tool_result import ToolCallResult, jsonable

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
    assert to_openai_dict(message) == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": expected,
    }


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
    assert ToolCallResult.success("x" * 40).preview(10) == "x" * 10 + "\n[30 more characters]"


def test_a_preview_is_whole_when_its_cut_would_save_less_than_its_note():
    """The filesystem server's refusal once ended "[4 more characters]" in the terminal."""
    note = len("\n[20 more characters]")
    assert ToolCallResult.success("x" * (10 + note)).preview(10) == "x" * (10 + note)
    assert ToolCallResult.success("x" * (11 + note)).preview(10).endswith("more characters]")


def test_a_preview_at_its_limit_is_whole_keeps_accents_and_shows_a_missing_message_as_empty():
    assert ToolCallResult.success("x" * 10).preview(10) == "x" * 10
    assert ToolCallResult.success({"é": "ü"}).preview(100) == '{\n "é": "ü"\n}'
    assert ToolCallResult(is_error=True).preview(10) == ""


def test_a_result_whose_json_is_exactly_the_limit_is_kept_as_it_is():
    result = ToolCallResult.success("x" * 1000)
    assert len(result.to_json()) == 1015
    assert result.bounded(1015) is result


def test_a_text_result_is_cut_as_text_not_as_its_json_string():
    bounded = ToolCallResult.success("ab" * 1000).bounded(200)
    assert bounded.content.startswith("abab")
    assert bounded.content.endswith(" of 2000 characters shown]")


@pytest.mark.parametrize(
    ("limit", "kept"),
    [
        (100, 37),  # 37 characters make the JSON exactly 100 long
        (96, 31),  # 96 → 84 → 74 → 65 → 57 → 50 → 44 → 39 → 35 → 31: an eighth at a time
        (70, 8),  # below 16 characters the cut goes one at a time
    ],
)
def test_a_long_text_is_cut_back_an_eighth_at_a_time_until_its_json_fits(limit, kept):
    bounded = ToolCallResult.success("x" * 1000).bounded(limit)
    assert bounded.content == "x" * kept + f"\n[truncated: first {kept} of 1000 characters shown]"
    assert len(bounded.to_json()) <= limit


def test_when_not_even_the_note_fits_nothing_of_the_text_is_kept_and_the_note_says_so():
    bounded = ToolCallResult.success("x" * 1000).bounded(10)
    assert bounded.content == "\n[truncated: first 0 of 1000 characters shown]"


def test_sets_come_out_sorted_by_their_text_the_same_in_every_process():
    assert jsonable(frozenset({9, 10, 100})) == [10, 100, 9]
    assert jsonable({"pear", "apple", "fig"}) == ["apple", "fig", "pear"]


def test_a_text_key_stays_the_text_it_is_even_when_its_str_says_otherwise():
    class Label(str):
        def __str__(self) -> str:
            return f"Label({super().__str__()})"

    assert ToolCallResult.success({Label("lamp"): 1}).to_json() == '{"content": {"lamp": 1}}'
