"""A conversation kept inside a token budget (spec 004 "Memory Optimization").

The conversation is measured as a request measures its messages (`domain/llm/tokens.py`:
their JSON at four characters a token), since no tokenizer is at hand for every provider.
Over the budget, the older steps are condensed into one summary message; the opening
prompts, the most recent steps and every line the LLM marked `CRITICAL:` are kept.
A step is an assistant message with what answers it (tool results, a backtrack prompt), so
a tool call and its result are always kept or condensed together.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    ContextSummary,
    Message,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from zork_mcp.domain.llm.tokens import messages_tokens

CRITICAL_MARK = "CRITICAL:"
RESULT_PREVIEW = 100


@dataclass(frozen=True)
class ContextBudget:
    max_tokens: int = 100_000
    keep_recent_steps: int = 2

    def __post_init__(self) -> None:
        if self.max_tokens < 1 or self.keep_recent_steps < 1:
            raise ValueError("a context budget needs max_tokens >= 1 and keep_recent_steps >= 1")


@dataclass(frozen=True)
class Compaction:
    """The messages to send instead, and what condensing them saved."""

    messages: tuple[Message, ...]
    tokens_before: int
    tokens_after: int
    steps_condensed: int
    critical_kept: int


def estimate_tokens(messages: Sequence[Message]) -> int:
    """The messages' part of a request's measure (`messages_tokens`)."""
    return messages_tokens(messages)


def compact(messages: Sequence[Message], budget: ContextBudget) -> Compaction | None:
    """None while the messages fit or nothing old is left to condense."""
    before = estimate_tokens(messages)
    if before <= budget.max_tokens:
        return None
    opening, steps = split_steps(messages)
    if len(steps) <= budget.keep_recent_steps:
        return None
    old, recent = steps[: -budget.keep_recent_steps], steps[-budget.keep_recent_steps :]
    critical = critical_lines(m for step in old for m in step)
    summary = ContextSummary(summary_text(old, critical))
    kept = (*opening, summary, *(m for step in recent for m in step))
    return Compaction(kept, before, estimate_tokens(kept), len(old), len(critical))


def split_steps(
    messages: Sequence[Message],
) -> tuple[tuple[Message, ...], list[tuple[Message, ...]]]:
    """The opening system/user prompts, then each assistant message with what follows it."""
    start = 0
    while start < len(messages) and isinstance(messages[start], SystemMessage | UserMessage):
        start += 1
    steps: list[list[Message]] = []
    for message in messages[start:]:
        if isinstance(message, AssistantText | AssistantToolCalls) or not steps:
            steps.append([])
        steps[-1].append(message)
    return tuple(messages[:start]), [tuple(step) for step in steps]


def critical_lines(messages: Iterable[Message]) -> list[str]:
    """Lines the LLM started with CRITICAL: in what it wrote (never in tool output)."""
    lines = []
    for message in messages:
        lines += [
            line.strip()
            for line in _said(message).splitlines()
            if line.strip().upper().startswith(CRITICAL_MARK)
        ]
    return lines


def _said(message: Message) -> str:
    """What the LLM wrote in a message ("" for a message it did not write)."""
    match message:
        case AssistantText(text):
            return text
        case AssistantToolCalls(preamble=preamble):
            return preamble or ""
        case _:
            return ""


def summary_text(steps: Sequence[tuple[Message, ...]], critical: Sequence[str]) -> str:
    results = {
        m.tool_call_id: m.result.to_json()
        for step in steps
        for m in step
        if isinstance(m, ToolResultMessage)
    }
    lines = [
        f"Summary of {len(steps)} earlier step(s), condensed to stay within the context budget:"
    ]
    for step in steps:
        match step[0]:
            case AssistantToolCalls(calls):
                lines += [
                    f"- {call.function.name}({_flat(call.function.arguments, 80)})"
                    f" -> {_flat(results.get(call.id) or '(no result)')}"
                    for call in calls
                ]
            case AssistantText(text) if text:
                lines.append(f"- said: {_flat(text)}")
    if critical:
        lines += ["Marked critical earlier:", *critical]
    return "\n".join(lines)


def _flat(text: object, limit: int = RESULT_PREVIEW) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
