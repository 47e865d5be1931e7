"""Golden runs of MCP-Ghost: record a provider's real replies once, replay them in tests.

A golden is readable JSON: the run's input, the provider's responses exactly as they came
over HTTP (bodies only: no headers, so no key), and the result those responses produce.
Replay serves the recorded responses through the real adapter's HTTP client, checking that
each request still asks for the same thing (same path, same tools, same conversation shape).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from zork_mcp.domain.errors import ZorkMcpError
from zork_mcp.ghost.result import GhostResultDict
from zork_mcp.ghost.run import mcp_ghost

RUN_INPUTS = (
    "server_config",
    "system_prompt",
    "provider",
    "user_prompt",
    "model",
    "timeout",
    "max_iterations",
    "enable_backtracking",
    "conversation_memory",
    "openai_api",
)
REPLAY_KEY = "golden-replay-key"


class GoldenMismatch(ZorkMcpError, AssertionError):
    """The run asked the provider something the recording did not cover."""


@dataclass
class Exchange:
    path: str
    request: dict[str, Any]
    status: int
    response: dict[str, Any]

    def to_json(self, iteration: int) -> dict[str, Any]:
        return {
            "iteration": iteration,
            "path": self.path,
            "request": self.request,
            "status": self.status,
            "response": self.response,
            "token_usage": usage_of(self.response),
        }


@dataclass
class RecordingTransport(httpx.AsyncBaseTransport):
    """Passes requests on and keeps each JSON request and response body (never headers)."""

    inner: httpx.AsyncBaseTransport
    exchanges: list[Exchange] = field(default_factory=list)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        self.exchanges.append(
            Exchange(
                request.url.path,
                json.loads(request.content),
                response.status_code,
                json.loads(body),
            )
        )
        return httpx.Response(response.status_code, headers=response.headers, content=body)


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answers the n-th request with the n-th recorded response, if it asks the same thing."""

    def __init__(self, recorded: list[Mapping[str, Any]]) -> None:
        self._recorded = list(recorded)
        self.served = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.served >= len(self._recorded):
            raise GoldenMismatch(
                f"request {self.served + 1} was not recorded (the golden has "
                f"{len(self._recorded)}); re-record the golden if the behaviour changed on purpose"
            )
        recorded = self._recorded[self.served]
        self.served += 1
        sent = json.loads(request.content)
        expected, actual = (
            request_shape(recorded["path"], recorded["request"]),
            request_shape(request.url.path, sent),
        )
        if expected != actual:
            raise GoldenMismatch(
                f"request {self.served} differs from the recording:\n"
                f"  recorded: {expected}\n  now:      {actual}"
            )
        return httpx.Response(recorded["status"], json=recorded["response"])


def request_shape(path: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """What a request asks for, independent of wording: path, tools offered, turns by role."""
    turns = body.get("messages") or body.get("contents") or body.get("input") or []
    tools = body.get("tools") or []
    names = sorted(
        str(
            tool.get("name")
            or (tool.get("function") or {}).get("name")
            or [d.get("name") for d in tool.get("functionDeclarations", [])]
        )
        for tool in tools
    )
    return {
        "path": path,
        "tools": names,
        "turns": [turn.get("role") or turn.get("type") for turn in turns],
    }


def usage_of(response: Mapping[str, Any]) -> dict[str, int] | None:
    usage = response.get("usage") or response.get("usageMetadata")
    if not isinstance(usage, Mapping):
        return None
    prompt = usage.get("prompt_tokens", usage.get("input_tokens", usage.get("promptTokenCount", 0)))
    completion = usage.get(
        "completion_tokens", usage.get("output_tokens", usage.get("candidatesTokenCount", 0))
    )
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def stable_view(result: Mapping[str, Any]) -> dict[str, Any]:
    """The result without what changes from run to run (timings)."""
    data = json.loads(json.dumps(result))
    for entry in data["tool_chain"]:
        entry.pop("execution_time", None)
    data["execution_metadata"].pop("total_execution_time", None)
    return data


def load_golden(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def save_golden(path: Path, golden: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(golden, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


async def replay(
    golden: Mapping[str, Any], **overrides: Any
) -> tuple[GhostResultDict, ReplayTransport]:
    """Run the golden's input with its recorded provider responses."""
    transport = ReplayTransport(golden["provider_responses"])
    async with httpx.AsyncClient(transport=transport) as client:
        result = await _run(golden["input"], REPLAY_KEY, client, **overrides)
    if transport.served != len(golden["provider_responses"]):
        raise GoldenMismatch(
            f"the run made {transport.served} requests; the golden recorded "
            f"{len(golden['provider_responses'])}"
        )
    return result, transport


async def record(
    inputs: Mapping[str, Any],
    api_key: str,
    *,
    test_name: str,
    description: str,
    source: str,
    transport: httpx.AsyncBaseTransport | None = None,
    base_url: str | None = None,
) -> dict[str, Any]:
    """Run against a provider (real, or a local peer) and return the golden it makes."""
    recorder = RecordingTransport(transport or httpx.AsyncHTTPTransport())
    async with httpx.AsyncClient(transport=recorder, timeout=120) as client:
        result = await _run(inputs, api_key, client, base_url=base_url)
    return {
        "test_name": test_name,
        "description": description,
        "source": source,
        "recorded_at": datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat(),
        "input": {key: inputs[key] for key in RUN_INPUTS if key in inputs},
        "golden_output": stable_view(result.model_dump()),
        "provider_responses": [e.to_json(i) for i, e in enumerate(recorder.exchanges, 1)],
    }


async def _run(
    inputs: Mapping[str, Any], api_key: str, client: httpx.AsyncClient, **extra: Any
) -> GhostResultDict:
    arguments = {key: inputs[key] for key in RUN_INPUTS if key in inputs}
    return await mcp_ghost(**arguments, api_key=api_key, http_client=client, **extra)
