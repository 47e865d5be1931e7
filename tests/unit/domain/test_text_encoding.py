"""Text a model sent as JSON may hold lone surrogates; what we send on must be UTF-8."""

import json

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.llm.endpoint import request_body
from zork_mcp.domain.text_encoding import REPLACEMENT, encodable, encodable_json, is_encodable

any_text = st.text(st.characters(codec=None))  # surrogates included


@given(any_text)
def test_encodable_text_is_utf8_and_keeps_every_encodable_character(text):
    cleaned = encodable(text)
    cleaned.encode("utf-8")
    assert len(cleaned) <= len(text)
    if is_encodable(text):
        assert cleaned == text


@given(st.text(st.characters(codec="utf-8")), st.text(st.characters(codec="utf-8")))
def test_a_lone_surrogate_becomes_one_replacement_character(left, right):
    assert encodable(left + "\ud800" + right) == left + REPLACEMENT + right


@given(
    st.recursive(
        any_text | st.integers(), lambda inner: st.lists(inner) | st.dictionaries(any_text, inner)
    )
)
def test_json_values_are_made_encodable_all_through(value):
    json.dumps(encodable_json(value), ensure_ascii=False).encode("utf-8")


def test_a_provider_request_body_is_what_httpx_would_send_unless_it_cannot_be():
    body = {"messages": [{"role": "user", "content": "café \u2028"}]}
    assert (
        request_body(body) == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    )
    assert json.loads(request_body({"content": "\ud800quit"})) == {"content": "\ufffdquit"}
