"""LLM doubles: ScriptedLLM replays queued replies, FunctionLLM answers with a callable.

Both record every request they receive, so tests assert on what the domain sent.
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.llm.messages import (
    FinishReason,
    FunctionCall,
    LLMRequest,
    LLMResponse,
    ToolCall,
    Usage,
)

Reply = LLMResponse | BaseException
_call_ids = itertools.count(1)


def action_reply(action: str, thinking: str = "", new_objective: str | None = None) -> LLMResponse:
    """A final answer in AgentResponse JSON."""
    body = {"thinking": thinking, "action": action, "new_objective": new_objective}
    return LLMResponse(json.dumps(body), finish_reason=FinishReason.STOP, usage=Usage(10, 5))


def text_reply(content: str | None) -> LLMResponse:
    return LLMResponse(content, finish_reason=FinishReason.STOP, usage=Usage(10, 5))


def tool_calls_reply(*calls: tuple[str, Any], preamble: str | None = None) -> LLMResponse:
    """Tool calls by canonical name; arguments are a dict (JSON-encoded) or raw text."""
    tool_calls = [
        ToolCall(f"call_{next(_call_ids)}", FunctionCall(name, _argument_text(args)))
        for name, args in calls
    ]
    reason = FinishReason.TOOL_CALLS
    return LLMResponse.of(preamble, tool_calls, finish_reason=reason, usage=Usage(10, 5))


def _argument_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


class ScriptedLLM:
    """Answers each request with the next queued reply; an exception in the queue is raised."""

    def __init__(self, replies: Iterable[Reply] = (), *, model: str = "fake/scripted") -> None:
        self._replies = list(replies)
        self._model = model
        self.requests: list[LLMRequest] = []

    @property
    def model(self) -> str:
        return self._model

    @property
    def remaining(self) -> int:
        return len(self._replies)

    def queue(self, *replies: Reply) -> None:
        self._replies.extend(replies)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        if not self._replies:
            raise LLMError(f"ScriptedLLM has no reply left for request {len(self.requests)}")
        reply = self._replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


class FunctionLLM:
    """Answers with `respond(request)`, which may be sync or async (like pydantic-ai's)."""

    def __init__(
        self,
        respond: Callable[[LLMRequest], LLMResponse | Awaitable[LLMResponse]],
        *,
        model: str = "fake/function",
    ) -> None:
        self._respond = respond
        self._model = model
        self.requests: list[LLMRequest] = []

    @property
    def model(self) -> str:
        return self._model

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        reply = self._respond(request)
        return await reply if inspect.isawaitable(reply) else reply
