"""What every LLM adapter shares: a JSON POST with bounded retries, and safe error text.

Retries (tenacity) cover 408, 429 and 5xx answers and connect/read timeouts, waiting as the
provider says (OpenAI's retry-after-ms, else Retry-After, however long), else exponentially
with jitter, within the retry budget: at most `attempts` tries and `wait_seconds` of waiting
in all. A wait that would overrun it is not started; the error says so. Every message
that leaves here has the API key removed, whatever the provider echoed back.

A 429 that says how long to wait pauses every call to that provider in this process (a
RateGate, shared by the episodes a sweep worker plays at once), not only the one that met
it; and each episode counts the 429s and retries it met (RetryStats). Before each wait the
policy's `notify` (if any) is told which attempt failed and how long the wait is, so a
display can say so while it happens (RetryNotice).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt
from tenacity.stop import stop_base
from tenacity.wait import wait_base, wait_exponential_jitter

from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.llm.messages import RetryStats
from zork_mcp.domain.text.encoding import encodable

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
RETRYABLE_TRANSPORT = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadTimeout,
    httpx.RemoteProtocolError,
    httpx.WriteTimeout,
    httpx.PoolTimeout,
)
REDACTED = "[REDACTED]"


class RateGate:
    """When a provider may next be called, for every caller in this process, whichever
    thread and event loop each runs in."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._open_at = 0.0

    def pause(self, seconds: float) -> None:
        with self._lock:
            self._open_at = max(self._open_at, self._clock() + seconds)

    def closed_for(self) -> float:
        with self._lock:
            return max(0.0, self._open_at - self._clock())

    async def wait(self, sleep: Callable[[float], Awaitable[None]]) -> None:
        """Until the gate opens; again if another 429 moved that later meanwhile."""
        waited_for = 0.0
        while True:
            with self._lock:
                open_at, now = self._open_at, self._clock()
            if open_at <= max(now, waited_for):
                return
            await sleep(open_at - now)
            waited_for = open_at


_gates: dict[str, RateGate] = {}
_gates_lock = threading.Lock()


def rate_gate(provider: str, url: str) -> RateGate:
    """The process's gate for one provider endpoint (a provider's limits follow its key and
    host: two base URLs are two gates)."""
    with _gates_lock:
        return _gates.setdefault(f"{provider} {_safe_url(url)}", RateGate())


@dataclass(frozen=True)
class RetryNotice:
    """An attempt failed and the next is about to be waited for."""

    provider: str
    attempt: int  # the attempt about to be made (2 after the first failed)
    attempts: int  # at most, by the policy
    reason: str  # why the last one failed, short: "HTTP 429 rate limited: …", "ReadTimeout"
    wait: float  # seconds until the next attempt


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4
    initial_delay: float = 1.0
    max_delay: float = 30.0  # cap of our own backoff; a provider's stated wait is kept
    wait_seconds: float = 120.0  # of waiting between attempts, in all
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    gate: RateGate | None = field(default=None, repr=False)  # shared with other callers
    stats: RetryStats | None = field(default=None, repr=False)  # this episode's counts
    notify: Callable[[RetryNotice], None] | None = field(default=None, repr=False)

    def describe(self) -> str:
        return f"retry budget: {self.attempts} attempts, {self.wait_seconds:g} s of waiting"


class _RetryableAnswer(Exception):
    def __init__(self, status: int, message: str, retry_after: float | None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class _RetryAfterOrBackoff(wait_base):
    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._backoff = wait_exponential_jitter(
            multiplier=policy.initial_delay, max=policy.max_delay
        )

    def __call__(self, retry_state: Any) -> float:
        error = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(error, _RetryableAnswer) and error.retry_after is not None:
            return error.retry_after
        return self._backoff(retry_state)


class _RetryTimeSpent(stop_base):
    """Stop before a wait that would take the time spent waiting between attempts past the
    policy's `wait_seconds` (not the run's money: that is `domain.llm.budget.BudgetSpent`)."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds

    def __call__(self, retry_state: Any) -> bool:
        return retry_state.idle_for + (retry_state.upcoming_sleep or 0.0) > self._seconds


@dataclass(frozen=True)
class JsonEndpoint:
    """One provider endpoint: where to POST, with which headers, and what to hide."""

    provider: str
    url: str
    headers: Mapping[str, str]
    secrets: tuple[str, ...] = ()

    @classmethod
    def bearer(cls, provider: str, url: str, api_key: str | None) -> JsonEndpoint:
        """An OpenAI-style endpoint: the key (if any) as a bearer token, and hidden."""
        headers = {"Content-Type": "application/json"}
        if not api_key:
            return cls(provider, url, headers)
        return cls(provider, url, headers | {"Authorization": f"Bearer {api_key}"}, (api_key,))

    async def post(
        self, client: httpx.AsyncClient, body: Mapping[str, Any], policy: RetryPolicy
    ) -> dict[str, Any]:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(policy.attempts) | _RetryTimeSpent(policy.wait_seconds),
            wait=_RetryAfterOrBackoff(policy),
            retry=retry_if_exception_type((_RetryableAnswer, *RETRYABLE_TRANSPORT)),
            sleep=policy.sleep,
            before_sleep=self._notifier(policy),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(client, body, policy, attempt.retry_state)
        except _RetryableAnswer as e:
            attempts = retrying.statistics.get("attempt_number", policy.attempts)
            message = e.message + _gave_up(e.retry_after, attempts, policy)
            raise self._error(e.status, message, attempts) from None
        except httpx.HTTPError as e:
            attempts = retrying.statistics.get("attempt_number", policy.attempts)
            reason = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            message = f"could not be reached ({reason})" + _gave_up(None, attempts, policy)
            raise self._error(None, message, attempts) from None
        raise AssertionError("unreachable: tenacity re-raises the last error")

    def _notifier(self, policy: RetryPolicy) -> Callable[[Any], None] | None:
        if policy.notify is None:
            return None
        notify = policy.notify

        def before_sleep(state: Any) -> None:
            error = state.outcome.exception() if state.outcome else None
            notify(
                RetryNotice(
                    self.provider,
                    state.attempt_number + 1,
                    policy.attempts,
                    redact(_failure(error), self.secrets),
                    state.upcoming_sleep,
                )
            )

        return before_sleep

    async def _attempt(
        self,
        client: httpx.AsyncClient,
        body: Mapping[str, Any],
        policy: RetryPolicy,
        state: Any,
    ) -> dict[str, Any]:
        """One try, once the provider's gate is open; a 429's stated wait closes it."""
        if policy.stats is not None and state.attempt_number > 1:
            policy.stats.retries += 1
        if policy.gate is not None:
            await policy.gate.wait(policy.sleep)
        try:
            return await self._post_once(client, body)
        except _RetryableAnswer as answer:
            if answer.status == 429 and policy.stats is not None:
                policy.stats.rate_limited += 1
            if answer.status == 429 and answer.retry_after and policy.gate is not None:
                policy.gate.pause(answer.retry_after)
            raise

    async def _post_once(
        self, client: httpx.AsyncClient, body: Mapping[str, Any]
    ) -> dict[str, Any]:
        headers = {**self.headers, "Content-Type": "application/json"}
        response = await client.post(self.url, headers=headers, content=request_body(body))
        data = _json_or_none(response)
        status = _effective_status(response.status_code, data)
        if status in RETRYABLE_STATUS:
            raise _RetryableAnswer(status, provider_message(data, response), _retry_after(response))
        if status >= 400 or not isinstance(data, dict):
            message = provider_message(data, response) if status >= 400 else "a non-JSON answer"
            raise self._error(status, message, 1)
        return data

    def _error(self, status: int | None, message: str, attempts: int) -> LLMError:
        after = f" after {attempts} attempt{'s' if attempts != 1 else ''}" if attempts > 1 else ""
        what = f"answered HTTP {status}" if status else "failed"
        text = f"{self.provider} {what}{after}: {message} (POST {_safe_url(self.url)})"
        return LLMError(redact(text, self.secrets), provider=self.provider, status=status)


def request_body(body: Mapping[str, Any]) -> bytes:
    """The JSON body as httpx would write it, less the lone surrogates a model may have sent
    (each becomes U+FFFD): a provider's strict JSON reader refuses them."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return encodable(text).encode("utf-8")


def _failure(error: BaseException | None) -> str:
    """Why an attempt failed, in a few words for a person watching."""
    if isinstance(error, _RetryableAnswer):
        said = " rate limited" if error.status == 429 else ""
        return f"HTTP {error.status}{said}: {error.message[:80]}"
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        return f"could not be reached ({type(error).__name__})"
    return type(error).__name__ if error is not None else "failed"


def _gave_up(asked: float | None, attempts: int, policy: RetryPolicy) -> str:
    if attempts < 2 and policy.attempts < 2:
        return ""
    wait = (
        f"; it asked to wait {asked:g} s more"
        if asked is not None and attempts < policy.attempts
        else ""
    )
    return f"{wait} ({policy.describe()})"


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def provider_message(data: Any, response: httpx.Response) -> str:
    """The provider's own error message (OpenAI, Anthropic and Gemini all use error.message)."""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])[:500]
    if isinstance(error, str):
        return error[:500]
    return (response.text or response.reason_phrase or "no details")[:500]


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _effective_status(status: int, data: Any) -> int:
    """OpenRouter can answer 200 with an error object; its code is the real status. (A
    Responses API answer always has `error`, null when all went well.)"""
    if status == 200 and isinstance(data, dict) and data.get("error") and "choices" not in data:
        code = data["error"].get("code") if isinstance(data["error"], dict) else None
        return code if isinstance(code, int) and code >= 400 else 502
    return status


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds the provider asks to wait: OpenAI's retry-after-ms first, then Retry-After."""
    milliseconds = response.headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _safe_url(url: str) -> str:
    """The URL without its query string, where a provider might have put a key."""
    return url.split("?", 1)[0]
