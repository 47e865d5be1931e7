"""Local stand-ins for LLM providers that speak each provider's wire protocol.

A peer checks every request against its provider's rules (provider_rules.py, enforced by
peer_checks.py) and answers a broken rule with the provider's own status, message and error
shape, recording the rule's id in `broken_rules`; otherwise it answers the next scripted
reply. The Gemini peer signs the first functionCall of each step with a thoughtSignature,
as Gemini 3 does, and refuses a later request that sends the call back without it.
Replies are domain LLMResponses (rendered into the provider's format, tool names taken
from the request's own offered tools) or HttpFault for error answers. The same peer serves
an `httpx.MockTransport` and a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import httpx

from tests.support.peer_checks import (
    Issued,
    check_anthropic,
    check_gemini,
    check_openai,
    check_responses,
)
from tests.support.provider_rules import Rejected
from zork_mcp.domain.llm.messages import LLMResponse, Usage

ANTHROPIC_ERROR_TYPES = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
GEMINI_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def counted(body: dict[str, Any], answer: dict[str, Any]) -> Usage:
    """Tokens as a provider would bill them, estimated at 4 characters a token: the
    request's tools and messages in, the answer out."""
    prompt = len(json.dumps(body.get("tools") or [])) + len(json.dumps(body["messages"]))
    return Usage(-(-prompt // 4), -(-len(json.dumps(answer)) // 4))


@dataclass
class HttpFault:
    status: int
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)


Reply = LLMResponse | HttpFault


@dataclass
class ProviderPeer(ABC):
    """What every peer shares; a subclass per wire protocol checks requests and renders replies."""

    replies: list[Reply]
    canonical_tools: Sequence[str] = ()  # canonical names, in the order requests offer them
    api_key: str | None = "test-key-0123456789"
    call_ids: bool = True  # False: tool calls come without `id`, as some local servers send
    # True: a reply scripted without usage reports the request's size as its prompt tokens
    # and its own as its completion tokens (characters / 4), as a provider counts them
    count_tokens: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    rejections: list[str] = field(default_factory=list)
    broken_rules: list[str] = field(default_factory=list)  # ids from provider_rules.RULES

    protocol: ClassVar[str]

    @abstractmethod
    def check(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None: ...

    @abstractmethod
    def render(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]: ...

    @abstractmethod
    def error_body(self, status: int, message: str) -> dict[str, Any]: ...

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict, bytes]:
        headers = {key.lower(): value for key, value in headers.items()}
        try:
            body = json.loads(raw)
            self.requests.append(body)
            self.check(path, headers, body)
            return self._answer(body)
        except Rejected as e:
            self.rejections.append(str(e))
            if e.rule:
                self.broken_rules.append(e.rule)
            return e.status, {}, json.dumps(self.error_body(e.status, str(e))).encode()

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict, bytes]:
        if not self.replies:
            raise Rejected(500, "the peer has no scripted reply left")
        reply = self.replies.pop(0)
        if isinstance(reply, HttpFault):
            return (
                reply.status,
                reply.headers,
                json.dumps(self.error_body(reply.status, reply.message)).encode(),
            )
        return 200, {}, json.dumps(self.render(reply, body)).encode()

    def _wire_name(self, canonical: str, offered: list[str]) -> str:
        if canonical in self.canonical_tools:
            index = list(self.canonical_tools).index(canonical)
            if index < len(offered):
                return offered[index]
        return canonical

    # ---- transports --------------------------------------------------------------------

    def mock_transport(self) -> httpx.MockTransport:
        def handler(request: httpx.Request) -> httpx.Response:
            status, headers, body = self.handle(
                request.url.path, dict(request.headers), request.content
            )
            return httpx.Response(status, headers=headers, content=body)

        return httpx.MockTransport(handler)

    @contextmanager
    def serve(self) -> Iterator[str]:
        """A real HTTP server on 127.0.0.1; yields its base URL."""
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                status, headers, body = peer.handle(
                    self.path.split("?")[0], dict(self.headers), raw
                )
                self.send_response(status)
                for key, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # a wide sweep connects 64 episodes at once (default 5)
            daemon_threads = True

        server = Server(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
            thread.join()


@dataclass
class OpenAIPeer(ProviderPeer):
    """OpenAI chat completions: OpenAI, OpenRouter and local servers."""

    protocol: ClassVar[str] = "openai"

    def check(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        if not path.endswith("/chat/completions"):
            raise Rejected(404, f"no route {path}")
        check_openai(headers, body, self.api_key)

    def render(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]:
        offered = [tool["function"]["name"] for tool in body.get("tools") or []]
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["content"] = reply.preamble
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": self._wire_name(call.function.name, offered),
                        "arguments": call.function.arguments,
                    },
                }
                for call in reply.tool_calls
            ]
            if not self.call_ids:
                for call in message["tool_calls"]:
                    del call["id"]
        usage = reply.usage or (counted(body, message) if self.count_tokens else None)
        return {
            "id": "chatcmpl-peer",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {  # CompletionUsage: all three counts are required
                "prompt_tokens": usage.prompt_tokens if usage else 0,
                "completion_tokens": usage.completion_tokens if usage else 0,
                "total_tokens": usage.prompt_tokens + usage.completion_tokens if usage else 0,
                "prompt_tokens_details": {"cached_tokens": 3},
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """OpenAI's error shape (API reference, "Error codes")."""
        return {"error": {"message": message, "type": "invalid_request_error", "code": status}}


@dataclass
class OpenAIResponsesPeer(ProviderPeer):
    """OpenAI's Responses API, stateless: it stores nothing, so a `previous_response_id` is
    refused and reasoning must come back encrypted. A reasoning model (`reasoning`) puts a
    reasoning item before its output, as GPT-5.4 and later do, and checks it comes back."""

    protocol: ClassVar[str] = "openai-responses"
    reasoning: bool = True
    encrypt: bool = True  # False: reasoning comes without its encrypted content
    issued: Issued = field(default_factory=Issued)
    _numbers: Iterator[int] = field(default_factory=itertools.count, repr=False)

    def check(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        if not path.endswith("/responses"):
            raise Rejected(404, f"no route {path}")
        check_responses(headers, body, self.api_key, self.issued)

    def render(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]:
        number = next(self._numbers)
        offered = [tool["name"] for tool in body.get("tools") or []]
        output: list[dict[str, Any]] = []
        reasoning_id = f"rs_peer{number}"
        if self.reasoning:
            output.append(self._reasoning_item(reasoning_id, body))
        text = reply.preamble if reply.tool_calls else reply.content
        if text is not None:
            output.append(_output_message(f"msg_peer{number}", text))
        for index, call in enumerate(reply.tool_calls or ()):
            item_id = f"fc_peer{number}_{index}"
            if self.reasoning:
                self.issued.reasoning_of_call[item_id] = reasoning_id
            output.append(
                {
                    "id": item_id,
                    "type": "function_call",
                    "status": "completed",
                    "call_id": call.id,
                    "name": self._wire_name(call.function.name, offered),
                    "arguments": call.function.arguments,
                }
            )
        usage = reply.usage
        prompt, completion = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        return {
            "id": f"resp_peer{number}",
            "object": "response",
            "created_at": 1764000000 + number,
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "model": body["model"],
            "output": output,
            "usage": {
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": 3},
                "output_tokens": completion,
                "output_tokens_details": {"reasoning_tokens": 2 if self.reasoning else 0},
                "total_tokens": prompt + completion,
            },
        }

    def _reasoning_item(self, item_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Encrypted content comes with it in stateless mode (reasoning guide)."""
        item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
        asked = body.get("store") is False or "reasoning.encrypted_content" in body.get(
            "include", []
        )
        if self.encrypt and asked:
            item["encrypted_content"] = f"gAAAA-peer-{item_id}-{len(self.issued.encrypted)}"
            self.issued.encrypted[item_id] = item["encrypted_content"]
        return item

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """OpenAI's error shape (API reference, "Error codes")."""
        return {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        }


def _output_message(item_id: str, text: str) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


@dataclass
class AnthropicPeer(ProviderPeer):
    """Anthropic messages."""

    protocol: ClassVar[str] = "anthropic"

    def check(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        if path != "/v1/messages":
            raise Rejected(404, f"no route {path}")
        check_anthropic(headers, body, self.api_key)

    def render(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]:
        offered = [tool["name"] for tool in body.get("tools") or []]
        choice = body.get("tool_choice") or {}
        content: list[dict[str, Any]] = []
        if choice.get("type") == "tool":
            content = [
                {
                    "type": "tool_use",
                    "id": "toolu_final",
                    "name": choice["name"],
                    "input": json.loads(reply.content or "{}"),
                }
            ]
        elif reply.tool_calls:
            if reply.preamble:
                content.append({"type": "text", "text": reply.preamble})
            content += [
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": self._wire_name(call.function.name, offered),
                    "input": json.loads(call.function.arguments or "{}"),
                }
                for call in reply.tool_calls
            ]
        elif reply.content:
            content = [{"type": "text", "text": reply.content}]
        usage = reply.usage
        uses = any(block["type"] == "tool_use" for block in content)
        return {
            "id": "msg_peer",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": "tool_use" if uses else "end_turn",
            "usage": {
                "input_tokens": usage.prompt_tokens if usage else 0,
                "output_tokens": usage.completion_tokens if usage else 0,
                "cache_read_input_tokens": 0,
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """Anthropic's error shape (API reference, "Errors")."""
        kind = ANTHROPIC_ERROR_TYPES.get(status, "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}


@dataclass
class GeminiPeer(ProviderPeer):
    """Gemini generateContent; signs function calls as Gemini 3 does."""

    protocol: ClassVar[str] = "gemini"
    signatures: dict[str, str] = field(default_factory=dict)  # call id -> signature
    _signature_numbers: Iterator[int] = field(default_factory=itertools.count, repr=False)

    def check(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        if not re.fullmatch(r"/v1beta/models/[^/:]+:generateContent", path):
            raise Rejected(404, f"no route {path}")
        check_gemini(headers, body, self.api_key, self.signatures)

    def render(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]:
        offered = [
            d["name"]
            for tool in body.get("tools") or []
            for d in tool.get("functionDeclarations") or []
        ]
        parts: list[dict[str, Any]] = []
        if reply.tool_calls:
            if reply.preamble:
                parts.append({"text": reply.preamble})
            parts += [
                {
                    "functionCall": {
                        "name": self._wire_name(call.function.name, offered),
                        "args": json.loads(call.function.arguments or "{}"),
                        "id": call.id,
                    }
                }
                for call in reply.tool_calls
            ]
            self._sign(parts)
        elif reply.content is not None:
            parts = [{"text": reply.content}]
        usage = reply.usage
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": usage.prompt_tokens if usage else 0,
                "candidatesTokenCount": usage.completion_tokens if usage else 0,
            },
            "modelVersion": "gemini-peer",
        }

    def _sign(self, parts: list[dict[str, Any]]) -> None:
        """Gemini 3 signs the first functionCall part of each step (thought-signatures docs)."""
        first = next(part for part in parts if "functionCall" in part)
        signature = f"peer-signature-{next(self._signature_numbers)}"
        first["thoughtSignature"] = signature
        self.signatures[first["functionCall"]["id"]] = signature

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """Gemini's error shape (Gemini API troubleshooting, google.rpc.Status)."""
        state = GEMINI_STATUSES.get(status, "INVALID_ARGUMENT")
        return {"error": {"code": status, "message": message, "status": state}}


PEERS: dict[str, type[ProviderPeer]] = {
    peer.protocol: peer for peer in (OpenAIPeer, OpenAIResponsesPeer, AnthropicPeer, GeminiPeer)
}


def peer_for(protocol: str, *args: Any, **options: Any) -> ProviderPeer:
    """The peer of a wire protocol (a provider registry entry's `protocol`)."""
    return PEERS[protocol](*args, **options)
