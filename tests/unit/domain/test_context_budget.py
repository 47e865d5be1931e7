"""The context budget (spec 004 "Memory Optimization"): condense old steps, keep the rest."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    ContextSummary,
    FunctionCall,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    system_message,
    user_message,
)
from zork_mcp.domain.loop.context_budget import (
    CRITICAL_MARK,
    ContextBudget,
    compact,
    critical_lines,
    estimate_tokens,
    split_steps,
)
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.tool_loop import ToolLoop
from zork_mcp.domain.tools.tool_result import ToolCallResult

text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=300)


@st.composite
def steps(draw, number: int) -> list[Message]:
    """An assistant message with tool calls (or words), then its results and maybe a prompt."""
    messages: list[Message] = []
    calls = tuple(
        ToolCall(
            f"call_{number}_{i}", FunctionCall(draw(st.sampled_from(["a.x", "b.y"])), draw(text))
        )
        for i in range(draw(st.integers(0, 2)))
    )
    words = draw(text)
    if draw(st.booleans()):
        words += f"\n{CRITICAL_MARK} {draw(text)}".rstrip()
    messages.append(AssistantToolCalls(calls, words) if calls else AssistantText(words))
    messages += [ToolResultMessage(c.id, ToolCallResult.success(draw(text))) for c in calls]
    if draw(st.booleans()):
        messages.append(UserMessage(draw(text)))
    return messages


def _calls(messages) -> list[ToolCall]:
    return [c for m in messages if isinstance(m, AssistantToolCalls) for c in m.calls]


@st.composite
def conversations(draw) -> list[Message]:
    opening = [system_message(draw(text)), user_message(draw(text))]
    count = draw(st.integers(0, 8))
    return opening + [m for n in range(count) for m in draw(steps(n))]


budgets = st.builds(ContextBudget, st.integers(1, 3000), st.integers(1, 3))


@given(conversations(), budgets)
def test_condensing_keeps_the_opening_the_recent_steps_the_pairs_and_the_critical(messages, budget):
    compaction = compact(messages, budget)
    opening, all_steps = split_steps(messages)
    if estimate_tokens(messages) <= budget.max_tokens or len(all_steps) <= budget.keep_recent_steps:
        assert compaction is None
        return
    assert compaction is not None
    sent = list(compaction.messages)
    recent = [m for step in all_steps[-budget.keep_recent_steps :] for m in step]
    assert sent[: len(opening)] == list(opening)
    assert sent[len(opening) + 1 :] == recent, "recent steps are kept whole"
    assert isinstance(sent[len(opening)], ContextSummary)
    summary = sent[len(opening)].text
    old = [m for step in all_steps[: -budget.keep_recent_steps] for m in step]
    for line in critical_lines(old):
        assert line in summary.splitlines()
    for call in _calls(old):
        assert call.function.name in summary
    asked = {c.id for c in _calls(sent)}
    answered = [m.tool_call_id for m in sent if isinstance(m, ToolResultMessage)]
    assert sorted(answered) == sorted(asked), "every call sent has its result and vice versa"
    assert compaction.tokens_after == estimate_tokens(sent)
    assert compaction.steps_condensed == len(all_steps) - budget.keep_recent_steps


def test_a_step_is_an_assistant_message_with_its_results_and_the_prompt_after_them():
    first = [
        AssistantToolCalls((ToolCall("c1", FunctionCall("a.x", "{}")),)),
        ToolResultMessage("c1", ToolCallResult.failure("failed")),
        UserMessage("The previous approach failed. Try another."),
    ]
    second = [AssistantText("done")]
    opening = [system_message("s"), user_message("u")]
    assert split_steps(opening + first + second) == (tuple(opening), [tuple(first), tuple(second)])


def test_under_the_budget_nothing_changes():
    messages = [system_message("s"), user_message("u")]
    assert compact(messages, ContextBudget(max_tokens=estimate_tokens(messages))) is None


def test_tokens_are_estimated_at_four_characters_each():
    as_json = json.dumps({"role": "user", "content": "x" * 400})
    assert estimate_tokens([user_message("x" * 400)]) == -(-len(as_json) // 4)


@pytest.mark.parametrize(("tokens", "recent"), [(0, 2), (100, 0)])
def test_a_budget_that_cannot_work_is_refused(tokens, recent):
    message = "^a context budget needs max_tokens >= 1 and keep_recent_steps >= 1$"
    with pytest.raises(ValueError, match=message):
        ContextBudget(tokens, recent)


async def test_a_long_turn_is_sent_condensed_with_an_event_and_its_history_kept_whole():
    def read(page: int) -> str:
        return f"page {page}: " + "lorem ipsum " * 150

    pages = 6
    replies = [
        tool_calls_reply(("book.read", {"page": p}), preamble=f"{CRITICAL_MARK} page {p} matters")
        for p in range(pages)
    ]
    llm = ScriptedLLM([*replies, action_reply("north")])
    telemetry = FakeTelemetry()
    budget = ContextBudget(max_tokens=1500, keep_recent_steps=2)
    server = FakeToolServer("book", {"read": read})
    async with server.open_session() as session:
        loop = ToolLoop(
            llm, session, LoopLimits(10, 5.0, context_budget=budget), telemetry, lambda: 0.0
        )
        outcome = await loop.run([system_message("s"), user_message("read the book")])
    assert outcome.answer.response.action == "north"
    assert len(outcome.messages) == 2 + pages * 2 + 1, "the turn's own history stays whole"
    sizes = [estimate_tokens(request.messages) for request in llm.requests]
    assert max(sizes) <= budget.max_tokens < estimate_tokens(outcome.messages[:-1])
    events = telemetry.of_type(EventType.MCP_CONTEXT_COMPACTED)
    assert events and all(e.fields["tokens_after"] < e.fields["tokens_before"] for e in events)
    last = llm.requests[-1].messages
    summary = last[2].text
    assert summary.startswith("Summary of 4 earlier step(s)")
    assert all(f"{CRITICAL_MARK} page {p} matters" in summary for p in range(pages - 2))
    assert events[-1].fields["critical_kept"] == pages - 2
    assert last[-1] == outcome.messages[-2], "the latest tool result is sent whole"


def _call(call_id: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(call_id, FunctionCall(name, arguments))


def _result(call_id: str, content: str) -> ToolResultMessage:
    return ToolResultMessage(call_id, ToolCallResult.success(content))


def _old_steps_and_two_recent() -> list[Message]:
    long_arguments = '{"text":   "' + "a b " * 30 + '"}'
    calls = (_call("c1", "map.look", long_arguments), _call("c2", "map.lost", "{}"))
    return [
        system_message("s"),
        user_message("u"),
        AssistantToolCalls(calls, "I will look.\n  critical: the troll guards the bridge  "),
        _result("c1", "A cellar.   Dark.\n" + "x" * 120),
        _result("c2", "CRITICAL: a tool's text"),
        AssistantText("Thinking\n about   it.\nCRITICAL: lamp is lit"),
        UserMessage("CRITICAL: a prompt's text"),
        AssistantText(""),
        AssistantText("recent one"),
        AssistantText("recent two"),
    ]


def test_the_summary_lists_each_old_call_with_its_result_and_each_old_saying_in_one_line():
    messages = _old_steps_and_two_recent()
    compaction = compact(messages, ContextBudget(max_tokens=1, keep_recent_steps=2))
    assert compaction is not None
    summary = compaction.messages[2]
    assert summary == ContextSummary(summary.text)
    flat_arguments = '{"text": "' + "a b " * 30 + '"}'  # whitespace runs become one space
    flat_result = '{"content": "A cellar. Dark.\\n' + "x" * 120  # the JSON the LLM was sent
    assert summary.text.splitlines() == [
        "Summary of 3 earlier step(s), condensed to stay within the context budget:",
        f"- map.look({flat_arguments[:77]}...) -> {flat_result[:97]}...",
        """- map.lost({}) -> {"content": "CRITICAL: a tool's text"}""",
        "- said: Thinking about it. CRITICAL: lamp is lit",
        "Marked critical earlier:",
        "critical: the troll guards the bridge",
        "CRITICAL: lamp is lit",
    ]
    assert compaction.messages[3:] == tuple(messages[-2:])
    assert (compaction.steps_condensed, compaction.critical_kept) == (3, 2)
    assert compaction.tokens_before == estimate_tokens(messages)


def test_a_call_without_a_result_says_so_and_a_summary_without_critical_lines_ends_there():
    messages = [
        user_message("u"),
        AssistantToolCalls((_call("c9", "a.x", "{}"),)),
        AssistantText("recent"),
    ]
    compaction = compact(messages, ContextBudget(max_tokens=1, keep_recent_steps=1))
    assert compaction is not None
    assert compaction.messages[1].text == (
        "Summary of 1 earlier step(s), condensed to stay within the context budget:\n"
        "- a.x({}) -> (no result)"
    )


@pytest.mark.parametrize(
    ("text", "shown"),
    [("y" * 100, "y" * 100), ("y" * 101, "y" * 97 + "..."), ("  one\n two  ", "one two")],
)
def test_a_said_line_keeps_a_hundred_characters_on_one_line(text, shown):
    messages = [user_message("u"), AssistantText(text), AssistantText("recent")]
    compaction = compact(messages, ContextBudget(max_tokens=1, keep_recent_steps=1))
    assert compaction is not None
    assert compaction.messages[1].text.splitlines()[1] == f"- said: {shown}"


def test_critical_lines_are_the_llms_own_in_any_case_and_stripped():
    messages = [
        AssistantText("x\n   Critical: keep me  \nnot CRITICAL: inline"),
        AssistantToolCalls((_call("c", "a.x", "{}"),), preamble=None),
        _result("c", "CRITICAL: from a tool"),
        UserMessage("CRITICAL: from a prompt"),
        AssistantText("CRITICAL:"),
    ]
    assert critical_lines(messages) == ["Critical: keep me", "CRITICAL:"]


def test_at_exactly_the_budget_nothing_is_condensed_and_one_token_over_it_is():
    messages = _old_steps_and_two_recent()
    tokens = estimate_tokens(messages)
    assert compact(messages, ContextBudget(max_tokens=tokens)) is None
    assert compact(messages, ContextBudget(max_tokens=tokens - 1)) is not None


def test_with_no_more_steps_than_kept_recent_nothing_is_condensed():
    messages = _old_steps_and_two_recent()
    assert compact(messages, ContextBudget(max_tokens=1, keep_recent_steps=5)) is None
    assert compact(messages, ContextBudget(max_tokens=1, keep_recent_steps=4)) is not None


def test_tokens_count_characters_not_escapes_and_round_up():
    accented = user_message("é" * 397)
    assert estimate_tokens([accented]) == 107, "428 characters, not 2,400 escaped ones"
    assert estimate_tokens([user_message("é" * 398)]) == 108
    assert estimate_tokens([]) == 0
    assert estimate_tokens([user_message(1.5j)]) == 9, "anything else as text"


def test_the_smallest_budget_is_one_token_and_one_recent_step():
    assert ContextBudget(1, 1) == ContextBudget(max_tokens=1, keep_recent_steps=1)


def test_a_conversation_may_start_without_opening_prompts_or_with_a_tool_result():
    first = AssistantText("go")
    stray = _result("c0", "late")
    assert split_steps([first, stray]) == ((), [(first, stray)])
    assert split_steps([stray, first]) == ((), [(stray,), (first,)])
    assert split_steps([]) == ((), [])
