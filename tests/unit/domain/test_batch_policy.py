"""A tool call's arguments as the LLM wrote them: a JSON object, or blank for none."""

from __future__ import annotations

import pytest

from zork_mcp.domain.loop.batch_policy import parse_arguments


def test_arguments_that_are_json_but_not_an_object_are_refused_naming_what_they_are():
    with pytest.raises(ValueError, match=r"^arguments must be a JSON object, got list$"):
        parse_arguments("[1, 2]")
    assert parse_arguments("  ") == {} and parse_arguments('{"a": 1}') == {"a": 1}
