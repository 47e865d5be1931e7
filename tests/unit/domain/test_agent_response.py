"""AgentResponse parsing (requirement 15): lenient, and always a one-line game command."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.domain.loop.agent_response import (
    FALLBACK_ACTION,
    PLAIN_COMMAND_CHARS,
    AgentResponse,
    final_answer_format,
    normalise_action,
    parse_agent_response,
    plain_command,
)


def test_a_plain_json_object_parses():
    parsed = parse_agent_response('{"thinking": "t", "action": "open door", "new_objective": "x"}')
    assert parsed.error is None
    assert parsed.response == AgentResponse(thinking="t", action="open door", new_objective="x")


@pytest.mark.parametrize(
    "text",
    [
        'Sure!\n```json\n{"thinking": "t", "action": "north"}\n```',
        'I will go {"thinking": "t", "action": "north"} now.',
        '{"note": {"nested": true}} then {"action": "north"}',
    ],
)
def test_json_in_a_fence_or_in_prose_is_found(text):
    assert parse_agent_response(text).response.action == "north"


PROSE = (
    "I think we should head north, since the forest path looks promising and the house "
    "is behind us."
)


@pytest.mark.parametrize(
    "text",
    [None, "", "   ", '{"thinking": "no action"}', '{"action": "  \\n "}', PROSE,
     "Let me think.\nI will go north.", "north {"],
)  # fmt: skip
def test_unusable_answers_fall_back_to_the_safe_action(text):
    parsed = parse_agent_response(text)
    assert parsed.response.action == FALLBACK_ACTION and parsed.error
    assert not parsed.plain


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("go north", "go north"),
        ("open mailbox\n", "open mailbox"),
        ("> open mailbox", "open mailbox"),
        ("Action: open mailbox", "open mailbox"),
        ("command:   take   lamp", "take lamp"),
        ("`open mailbox`", "open mailbox"),
        ('"read leaflet"', "read leaflet"),
        ("\n\n  north  \n", "north"),
    ],
)
def test_a_reply_of_one_short_line_is_the_command_it_says(text, command):
    """What a small local model answers without JSON is played as it says, not as `look`."""
    parsed = parse_agent_response(text)
    assert parsed.response.action == command
    assert parsed.plain and parsed.error is None


def test_actions_are_single_clean_lines():
    parsed = parse_agent_response('{"action": "\\n>  take   lamp \\nthen go north"}')
    assert parsed.response.action == "take lamp"


@settings(max_examples=300)
@given(st.text())
def test_any_text_yields_a_non_empty_single_line_command(text):
    action = parse_agent_response(text).response.action
    assert action and action == action.strip() and "\n" not in action and "\r" not in action


@settings(max_examples=200)
@given(
    st.text(min_size=1).filter(lambda s: s.replace(">", "").strip()),
    st.text(),
    st.none() | st.text(),
)
def test_round_trip_of_well_formed_answers(action, thinking, objective):
    body = json.dumps({"thinking": thinking, "action": action, "new_objective": objective})
    parsed = parse_agent_response(body)
    assert parsed.response.thinking == thinking and parsed.response.new_objective == objective


def test_the_final_answer_schema_is_strict_and_names_every_field():
    schema = final_answer_format().schema
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(AgentResponse.model_fields) == set(schema["properties"])


def test_a_brace_that_is_not_json_does_not_hide_the_answer_after_it():
    text = 'I weighed {options} first. {"thinking": "t", "action": "open door"}'
    assert parse_agent_response(text).response.action == "open door"


def test_an_empty_answer_falls_back_saying_so():
    for text in (None, "", " \n "):
        answer = parse_agent_response(text)
        assert answer.error == "the reply was empty"
        assert answer.response.thinking == "Parse error: the reply was empty"


def test_an_answer_without_json_falls_back_quoting_its_first_200_characters():
    text = "I think I will go north. " * 12  # 300 characters, no JSON object
    answer = parse_agent_response(text)
    assert answer.error is not None and answer.error.endswith(f": {text[:200]!r}")


def test_an_action_of_only_blanks_and_prompt_marks_is_refused_saying_what_it_must_be():
    with pytest.raises(ValueError, match=r"^action must be a non-empty game command$"):
        normalise_action(" \n>  \n")


# What wraps a command in a small model's reply, mixed: prompt marks, labels, quotes, braces
WRAPPINGS = st.lists(st.sampled_from([*">:`'\" \n{}", "Action", "command", "north"]), max_size=12)


@settings(max_examples=500)
@given(st.one_of(st.text(), WRAPPINGS.map("".join)))
def test_a_plain_command_is_one_bounded_line_or_nothing(text):
    command = plain_command(text)
    if command is None:
        return
    assert command == " ".join(command.split()) and command
    assert len(command) <= PLAIN_COMMAND_CHARS and "{" not in command and "}" not in command
    assert not command.startswith(">")
    assert len([line for line in text.splitlines() if line.strip()]) == 1
