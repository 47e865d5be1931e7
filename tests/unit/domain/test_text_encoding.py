"""Text a model sent as JSON may hold lone surrogates; what we send on must be UTF-8."""

import json

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.llm.endpoint import request_body
from zork_mcp.domain.text.encoding import REPLACEMENT, encodable, encodable_json, is_encodable

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


def test_text_is_encodable_unless_it_holds_a_lone_surrogate():
    assert is_encodable("café \u2028 \U0001f600") and is_encodable("")
    assert not is_encodable("\ud800") and not is_encodable("quit\udfff")


def test_json_values_keep_their_shape_keys_and_items_each_made_encodable():
    value = {"k\ud800": ["x\udc00", 1, None, {"n": "ok"}], "t": ("a", 2.5), "b": True}
    assert encodable_json(value) == {
        "k\ufffd": ["x\ufffd", 1, None, {"n": "ok"}],
        "t": ["a", 2.5],
        "b": True,
    }
