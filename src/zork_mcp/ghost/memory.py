"""conversation_memory=False: the LLM sees the prompts and only the latest tool exchange."""

from __future__ import annotations

from dataclasses import replace

from zork_mcp.domain.llm.messages import (
    AssistantToolCalls,
    LLMRequest,
    LLMResponse,
    Message,
    SystemMessage,
    UserMessage,
)
from zork_mcp.ports.llm import LLM


class RecentContextLLM:
    """An LLM wrapper that trims each request's history; the run's own history stays whole."""

    def __init__(self, inner: LLM) -> None:
        self._inner = inner

    @property
    def model(self) -> str:
        return self._inner.model

    async def complete(self, request: LLMRequest) -> LLMResponse:
        return await self._inner.complete(
            replace(request, messages=recent_context(request.messages))
        )


def recent_context(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """The opening system/user messages, then everything from the last tool-calls message on."""
    opening = 0
    while opening < len(messages) and isinstance(messages[opening], SystemMessage | UserMessage):
        opening += 1
    last_calls = max(
        (i for i, m in enumerate(messages) if isinstance(m, AssistantToolCalls)), default=None
    )
    if last_calls is None or last_calls < opening:
        return messages
    return (*messages[:opening], *messages[last_calls:])
