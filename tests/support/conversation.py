"""Checks on recorded conversations that real OpenAI-compatible APIs would enforce."""

from __future__ import annotations

from collections.abc import Sequence

from zork_mcp.domain.llm.messages import AssistantToolCalls, Message, ToolResultMessage


def unanswered_tool_calls(messages: Sequence[Message]) -> list[str]:
    """Tool call ids of assistant messages not answered by tool messages right after them."""
    missing: list[str] = []
    for index, message in enumerate(messages):
        if not isinstance(message, AssistantToolCalls):
            continue
        wanted = [call.id for call in message.calls]
        answered = []
        for later in messages[index + 1 :]:
            if not isinstance(later, ToolResultMessage):
                break
            answered.append(later.tool_call_id)
        missing += [call_id for call_id in wanted if call_id not in answered]
    return missing


def tool_messages(messages: Sequence[Message]) -> list[ToolResultMessage]:
    return [message for message in messages if isinstance(message, ToolResultMessage)]
