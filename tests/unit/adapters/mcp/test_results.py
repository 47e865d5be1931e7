"""A result with structured content keeps every content item that does not merely repeat it."""

from __future__ import annotations

import base64
import json

import pytest

from zork_mcp.adapters.mcp.results import read_answer, to_result

STRUCTURED = {"score": 35, "moves": ["n", "take lamp"]}
IMAGE = {"type": "image", "data": base64.b64encode(b"\0" * 300).decode(), "mimeType": "image/png"}
IMAGE_SHOWN = "[image: image/png, 300 bytes omitted]"
UNKNOWN_SHOWN = "[a content item of a type MCP does not define ('hologram') was left out]"


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def shown(content: list, structured: object = STRUCTURED, wrapped: bool = False) -> object:
    answer = {"content": content, "structuredContent": structured, "isError": False}
    return to_result(read_answer(answer), wrapped).content


@pytest.mark.parametrize(
    "duplicate",
    [json.dumps(STRUCTURED), json.dumps(STRUCTURED, indent=2), json.dumps(STRUCTURED, indent=None)],
)
def test_the_text_that_only_repeats_the_structured_content_is_dropped(duplicate):
    assert shown([text(duplicate)]) == STRUCTURED


def test_a_different_text_is_kept_after_the_structured_content():
    assert shown([text("You are in a maze.")]) == [STRUCTURED, "You are in a maze."]


def test_the_structured_content_takes_the_place_of_its_repetition_among_other_items():
    content = [text("Score so far:"), text(json.dumps(STRUCTURED)), IMAGE]
    assert shown(content) == ["Score so far:", STRUCTURED, IMAGE_SHOWN]


def test_an_image_is_kept_as_its_placeholder():
    assert shown([IMAGE]) == [STRUCTURED, IMAGE_SHOWN]
    assert shown([text(json.dumps(STRUCTURED)), IMAGE]) == [STRUCTURED, IMAGE_SHOWN]


def test_an_item_of_an_unknown_type_is_kept_as_its_note():
    content = [text(json.dumps(STRUCTURED)), {"type": "hologram"}, text("last")]
    assert shown(content) == [STRUCTURED, UNKNOWN_SHOWN, "last"]


def test_no_content_at_all_is_the_structured_content_alone():
    assert shown([]) == STRUCTURED


def test_a_wrapped_primitive_is_unwrapped_and_its_text_is_a_repetition():
    """MCPServer wraps `-> int` as {"result": 5} and writes "5"; `-> str` writes it as is."""
    assert shown([text("5")], {"result": 5}, wrapped=True) == 5
    assert shown([text("west")], {"result": "west"}, wrapped=True) == "west"
    assert shown([text("5"), text("note")], {"result": 5}, wrapped=True) == [5, "note"]


def test_a_returned_list_written_one_item_per_element_is_a_repetition():
    items = [text("north"), text('{\n  "x": 1\n}')]
    assert shown(items, {"result": ["north", {"x": 1}]}, wrapped=True) == ["north", {"x": 1}]


def test_a_text_equal_in_json_but_of_another_kind_is_not_a_repetition():
    assert shown([text("true")], {"result": 1}, wrapped=True) == [1, "true"]


def test_without_structured_content_the_items_are_as_before():
    answer = {"content": [text("a"), IMAGE], "isError": False}
    assert to_result(read_answer(answer), False).content == ["a", IMAGE_SHOWN]
    answer = {"content": [text("a")], "structuredContent": None, "isError": False}
    assert to_result(read_answer(answer), False).content == "a"


def test_an_error_result_is_its_text_whatever_the_structured_content():
    answer = {"content": [text("boom"), IMAGE], "structuredContent": {"a": 1}, "isError": True}
    result = to_result(read_answer(answer), False)
    assert result.is_error and result.error_message == f"boom\n{IMAGE_SHOWN}"


# The npm filesystem server (2026.8.31) answers each tool with its text and, as its
# structured content, the same words under one key: {"content": text}.
LISTING = "[DIR] cellar\n[FILE] note.txt"


def test_structured_content_that_only_carries_the_text_reaches_the_model_once_as_the_text():
    assert shown([text(LISTING)], {"content": LISTING}) == LISTING
    assert shown([text("a"), text("b")], {"content": ["a", "b"]}) == ["a", "b"]


def test_structured_content_that_only_carries_the_content_blocks_is_left_out():
    """The filesystem server's read_media_file: the image once, as its placeholder, never
    its base64 again inside the structured content."""
    assert shown([IMAGE], {"content": [IMAGE]}) == IMAGE_SHOWN
    assert shown([IMAGE, text("a")], {"content": [IMAGE, "a"]}) == [IMAGE_SHOWN, "a"]


def test_structured_content_that_says_more_keeps_its_fields_and_drops_the_text_it_holds():
    structured = {"path": "/notes", "content": LISTING}
    assert shown([text(LISTING)], structured) == structured
    kept = shown([text("Listing:"), text(LISTING)], structured)
    assert kept == ["Listing:", structured]
    assert shown([text(LISTING)], {"content": LISTING, "truncated": False}) == {
        "content": LISTING,
        "truncated": False,
    }


def test_a_text_the_structured_content_does_not_hold_is_kept_beside_it():
    assert shown([text("other words")], {"content": LISTING}) == [
        {"content": LISTING},
        "other words",
    ]


def test_an_empty_structured_object_beside_text_adds_nothing():
    assert shown([text("done")], {}) == "done"
    assert shown([], {}) == {}
