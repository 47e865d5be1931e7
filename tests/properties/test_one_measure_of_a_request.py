"""Issue 68: one measure of a request's size.

"One measure of a request's size, used by the history budget, the tool offer's budget, the
budget guard and the estimate, counting what the provider is sent (tool calls included)."
For any system prompt, offered tools, history policy and game: each turn's prompt as
`--dry-run` estimates it weighs what the budget guard estimates for the identical request;
a part of a request weighs what it adds to one (the offer's definitions, the history's
messages); and a request with tool calls and their results measures more than without them,
by at least their names', arguments' and results' characters.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.strategies import TEXT, input_schemas, json_values, plain_names
from zork_mcp.domain.episode.estimate import episode_requests, estimate_episode
from zork_mcp.domain.episode.history import HistoryMode, HistoryPolicy
from zork_mcp.domain.llm.budget import OUTPUT_TOKENS, Budget, SpendGuard
from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    FunctionCall,
    LLMRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from zork_mcp.domain.llm.tokens import message_chars, messages_tokens, request_tokens, tokens_in
from zork_mcp.domain.loop.agent_response import final_answer_format
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolDefinition, definition_json

texts = st.text(TEXT, max_size=300)
definitions = st.builds(
    ToolDefinition,
    name=st.builds(lambda s, t: f"{s}.{t}", plain_names, plain_names),
    description=st.text(TEXT, max_size=120),
    parameters=input_schemas(),
)
policies = st.builds(
    HistoryPolicy,
    mode=st.sampled_from(HistoryMode),
    turns=st.integers(1, 12),
    budget_tokens=st.integers(0, 3000),
    block=st.integers(1, 5),
)
plain_messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(SystemMessage, texts), st.builds(UserMessage, texts), st.builds(AssistantText, texts)
)
calls = st.builds(
    ToolCall,
    id=st.from_regex(r"call_[a-z0-9]{1,8}", fullmatch=True),
    function=st.builds(
        FunctionCall,
        plain_names.map(lambda name: f"notes.{name}"),
        st.dictionaries(plain_names, json_values, max_size=4).map(json.dumps),
    ),
)


def price(input_tokens: int, output_tokens: int) -> float:
    return input_tokens * 3e-6 + output_tokens * 15e-6


@settings(max_examples=40, deadline=None)
@given(
    system=texts,
    tools=st.lists(definitions, max_size=4, unique_by=lambda tool: tool.name),
    policy=policies,
    turns=st.integers(1, 25),
    answer_chars=st.integers(1, 600),
)
def test_the_estimate_of_a_turns_prompt_is_the_budget_guards_of_the_same_request(
    system, tools, policy, turns, answer_chars
):
    answer = final_answer_format()
    requests = list(episode_requests(system, tools, policy, turns, answer_chars, answer))
    estimate = estimate_episode(requests)
    guard = SpendGuard(Budget(tokens=10**9), price)
    assert len(estimate.prompts) == len(requests) == turns
    for prompt, request in zip(estimate.prompts, requests, strict=True):
        assert request.tools == (tuple(tools) or None)
        assert request.response_format == (None if tools else answer)
        assert prompt.tokens == request_tokens(request)
        assert guard.estimate(request).tokens == prompt.tokens + OUTPUT_TOKENS
        assert prompt.shared <= prompt.tokens


@given(
    messages=st.lists(plain_messages, max_size=6),
    tools=st.lists(definitions, max_size=4),
    answer=st.booleans(),
)
def test_a_part_of_a_request_weighs_what_it_adds_to_the_request(messages, tools, answer):
    """The offer's budget reads definitions, the history and the context budget messages,
    by the request's own rule."""
    request = LLMRequest(tuple(messages), tools=tuple(tools) or None)
    parts = sum(len(definition_json(t)) for t in tools) + sum(map(message_chars, messages))
    assert request_tokens(request) == tokens_in(parts)
    assert messages_tokens(messages) == request_tokens(LLMRequest(tuple(messages)))
    if answer:  # a response format adds its name and schema
        answer_format = final_answer_format()
        formatted = LLMRequest(tuple(messages), response_format=answer_format)
        floor = (len(answer_format.name) + len(json.dumps(dict(answer_format.schema)))) // 4
        assert request_tokens(formatted) >= request_tokens(LLMRequest(tuple(messages))) + floor


@given(
    messages=st.lists(plain_messages, max_size=6),
    batch=st.lists(calls, min_size=1, max_size=4, unique_by=lambda call: call.id),
    results=st.lists(json_values, min_size=4, max_size=4),
    preamble=st.none() | texts,
)
def test_a_request_with_tool_calls_measures_more_than_without(messages, batch, results, preamble):
    without = LLMRequest(tuple(messages))
    answered = [
        ToolResultMessage(call.id, ToolCallResult.success(result))
        for call, result in zip(batch, results, strict=False)
    ]
    with_calls = LLMRequest((*messages, AssistantToolCalls(tuple(batch), preamble), *answered))
    sent = sum(len(c.function.name) + len(c.function.arguments) for c in batch)
    sent += sum(len(m.result.to_json()) for m in answered) + len(preamble or "")
    assert request_tokens(with_calls) >= request_tokens(without) + sent // 4
    assert request_tokens(with_calls) > request_tokens(without)
