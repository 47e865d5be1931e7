"""Before each retry's wait the policy's `notify` hears which attempt comes next, why the last
failed (without the key) and how long the wait is: a display says so while it happens."""

from __future__ import annotations

import httpx
import pytest

from zork_mcp.adapters.llm.endpoint import JsonEndpoint, RetryNotice, RetryPolicy
from zork_mcp.domain.errors import LLMError

KEY = "sk-secret-0123456789"
URL = "https://llm.test/v1/chat/completions"


async def post(answers: list, notices: list[RetryNotice], attempts: int = 3) -> dict:
    def answer(request: httpx.Request) -> httpx.Response:
        next_answer = answers.pop(0)
        if isinstance(next_answer, Exception):
            raise next_answer
        return next_answer

    async def no_sleep(_: float) -> None:
        pass

    policy = RetryPolicy(attempts=attempts, sleep=no_sleep, notify=notices.append)
    endpoint = JsonEndpoint.bearer("openrouter", URL, KEY)
    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        return await endpoint.post(client, {"model": "m"}, policy)


async def test_a_429_and_a_503_are_told_before_their_waits():
    notices: list[RetryNotice] = []
    limited = {"error": {"message": f"slow down, {KEY}"}}
    answers = [
        httpx.Response(429, json=limited, headers={"retry-after": "2"}),
        httpx.Response(503, json={"error": {"message": "busy"}}, headers={"retry-after": "0.5"}),
        httpx.Response(200, json={"choices": []}),
    ]
    assert await post(answers, notices) == {"choices": []}
    assert notices == [
        RetryNotice("openrouter", 2, 3, "HTTP 429 rate limited: slow down, [REDACTED]", 2.0),
        RetryNotice("openrouter", 3, 3, "HTTP 503: busy", 0.5),
    ]


async def test_an_unreachable_provider_is_told_each_time_and_not_after_the_last():
    notices: list[RetryNotice] = []
    request = httpx.Request("POST", URL)
    answers = [httpx.ConnectError("no route", request=request) for _ in range(3)]
    with pytest.raises(LLMError, match="after 3 attempts"):
        await post(answers, notices)
    assert [(n.attempt, n.reason) for n in notices] == [
        (2, "could not be reached (ConnectError)"),
        (3, "could not be reached (ConnectError)"),
    ]
