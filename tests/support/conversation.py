"""Checks on recorded conversations that real OpenAI-compatible APIs would enforce."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def unanswered_tool_calls(messages: Sequence[dict[str, Any]]) -> list[str]:
    """Tool call ids of assistant messages not answered by tool messages right after them."""
    missing: list[str] = []
    for index, message in enumerate(messages):
        if message["role"] != "assistant" or not message.get("tool_calls"):
            continue
        wanted = [call["id"] for call in message["tool_calls"]]
        answered = []
        for later in messages[index + 1 :]:
            if later["role"] != "tool":
                break
            answered.append(later["tool_call_id"])
        missing += [call_id for call_id in wanted if call_id not in answered]
    return missing


def tool_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [message for message in messages if message["role"] == "tool"]
