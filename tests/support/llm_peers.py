"""Local stand-ins for LLM providers that speak each provider's wire protocol.

A peer checks every request the way the real service does and answers 400 (or 401) with
the provider's error shape when a rule is broken; otherwise it answers the next scripted
reply. Replies are domain LLMResponses (rendered into the provider's format, tool names
taken from the request's own offered tools) or HttpFault for error answers. The same peer
serves an `httpx.MockTransport` and a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from zork_mcp.domain.messages import LLMResponse

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
GEMINI_REJECTS = frozenset(
    {
        "$schema",
        "additionalProperties",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "propertyNames",
        "uniqueItems",
        "$ref",
        "$defs",
        "const",
        "title",
        "default",
    }
)


class Rejected(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class HttpFault:
    status: int
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)


Reply = LLMResponse | HttpFault


@dataclass
class ProviderPeer:
    protocol: str  # "openai" | "anthropic" | "gemini"
    replies: list[Reply]
    canonical_tools: Sequence[str] = ()  # canonical names, in the order requests offer them
    api_key: str | None = "test-key-0123456789"
    requests: list[dict[str, Any]] = field(default_factory=list)
    rejections: list[str] = field(default_factory=list)

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict, bytes]:
        headers = {key.lower(): value for key, value in headers.items()}
        try:
            body = json.loads(raw)
            self.requests.append(body)
            validate = {
                "openai": self._openai,
                "anthropic": self._anthropic,
                "gemini": self._gemini,
            }[self.protocol]
            validate(path, headers, body)
            return self._answer(body)
        except Rejected as e:
            self.rejections.append(str(e))
            return e.status, {}, json.dumps(self._error_body(e.status, str(e))).encode()

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict, bytes]:
        if not self.replies:
            raise Rejected(500, "the peer has no scripted reply left")
        reply = self.replies.pop(0)
        if isinstance(reply, HttpFault):
            return (
                reply.status,
                reply.headers,
                json.dumps(self._error_body(reply.status, reply.message)).encode(),
            )
        render = {
            "openai": self._render_openai,
            "anthropic": self._render_anthropic,
            "gemini": self._render_gemini,
        }[self.protocol]
        return 200, {}, json.dumps(render(reply, body)).encode()

    def _error_body(self, status: int, message: str) -> dict[str, Any]:
        if self.protocol == "anthropic":
            return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
        if self.protocol == "gemini":
            return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
        return {"error": {"message": message, "type": "invalid_request_error", "code": status}}

    def _wire_name(self, canonical: str, offered: list[str]) -> str:
        if canonical in self.canonical_tools:
            index = list(self.canonical_tools).index(canonical)
            if index < len(offered):
                return offered[index]
        return canonical

    # ---- OpenAI chat completions -------------------------------------------------------

    def _openai(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        if not path.endswith("/chat/completions"):
            raise Rejected(404, f"no route {path}")
        if self.api_key and headers.get("authorization") != f"Bearer {self.api_key}":
            raise Rejected(401, "Incorrect API key provided")
        if not isinstance(body.get("model"), str) or not body.get("messages"):
            raise Rejected(400, "model and messages are required")
        tools = body.get("tools") or []
        for tool in tools:
            _check_name(OPENAI_NAME, tool["function"]["name"], "tools[].function.name")
        if "tool_choice" in body and not tools:
            raise Rejected(400, "tool_choice is only allowed when tools are specified")
        _check_openai_history(body["messages"])
        if "response_format" in body:
            _check_response_format(body["response_format"])

    def _render_openai(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]:
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
        usage = reply.usage
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
            "usage": {
                "prompt_tokens": usage.prompt_tokens if usage else 0,
                "completion_tokens": usage.completion_tokens if usage else 0,
                "prompt_tokens_details": {"cached_tokens": 3},
            },
        }

    # ---- Anthropic messages ------------------------------------------------------------

    def _anthropic(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        if path != "/v1/messages":
            raise Rejected(404, f"no route {path}")
        if headers.get("x-api-key") != self.api_key:
            raise Rejected(401, "invalid x-api-key")
        if not headers.get("anthropic-version"):
            raise Rejected(400, "anthropic-version header is required")
        if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
            raise Rejected(400, "max_tokens: Field required")
        tools = body.get("tools") or []
        for tool in tools:
            _check_name(ANTHROPIC_NAME, tool["name"], "tools.name")
        choice = body.get("tool_choice") or {}
        if choice.get("type") == "tool" and choice.get("name") not in {t["name"] for t in tools}:
            raise Rejected(400, "tool_choice names a tool that is not defined")
        _check_anthropic_history(body.get("messages") or [])

    def _render_anthropic(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]:
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

    # ---- Gemini generateContent --------------------------------------------------------

    def _gemini(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        if not re.fullmatch(r"/v1beta/models/[^/:]+:generateContent", path):
            raise Rejected(404, f"no route {path}")
        if headers.get("x-goog-api-key") != self.api_key:
            raise Rejected(400, "API key not valid. Please pass a valid API key.")
        declarations = [
            d for tool in body.get("tools") or [] for d in tool.get("functionDeclarations") or []
        ]
        for declaration in declarations:
            _check_name(GEMINI_NAME, declaration["name"], "function_declarations.name")
            _check_gemini_schema(declaration.get("parameters") or {})
        schema = (body.get("generationConfig") or {}).get("responseSchema")
        if schema is not None:
            _check_gemini_schema(schema)
        _check_gemini_history(body.get("contents") or [])

    def _render_gemini(self, reply: LLMResponse, body: dict[str, Any]) -> dict[str, Any]:
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

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
            thread.join()


def _check_name(pattern: re.Pattern[str], name: str, where: str) -> None:
    if not isinstance(name, str) or not pattern.match(name):
        raise Rejected(400, f"Invalid '{where}': string does not match pattern {pattern.pattern}")


def _check_openai_history(messages: list[dict[str, Any]]) -> None:
    pending: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            raise Rejected(400, f"messages[{index}].role is invalid: {role!r}")
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                raise Rejected(400, f"messages[{index}]: tool message answers no pending call")
            pending.remove(message["tool_call_id"])
            continue
        if pending:
            raise Rejected(
                400,
                "An assistant message with 'tool_calls' must be followed by tool "
                "messages responding to each 'tool_call_id'. The following "
                f"tool_call_ids did not have response messages: {pending}",
            )
        for call in message.get("tool_calls") or []:
            _check_name(OPENAI_NAME, call["function"]["name"], f"messages[{index}].tool_calls")
            pending.append(call["id"])
    if pending:
        raise Rejected(400, f"tool_call_ids did not have response messages: {pending}")


def _check_response_format(response_format: dict[str, Any]) -> None:
    if response_format.get("type") != "json_schema":
        raise Rejected(400, "response_format.type must be json_schema")
    spec = response_format.get("json_schema") or {}
    _check_name(OPENAI_NAME, spec.get("name", ""), "response_format.json_schema.name")
    schema = spec.get("schema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise Rejected(400, "response_format.json_schema.schema must be an object schema")
    if spec.get("strict"):
        _check_strict(schema, "schema")


def _check_strict(node: dict[str, Any], where: str) -> None:
    if node.get("type") == "object" or "properties" in node:
        properties = node.get("properties") or {}
        if node.get("additionalProperties") is not False:
            raise Rejected(400, f"Invalid schema: {where} must set additionalProperties: false")
        if sorted(node.get("required") or []) != sorted(properties):
            raise Rejected(400, f"Invalid schema: {where}.required must list every property")
        for name, sub in properties.items():
            _check_strict(sub, f"{where}.properties.{name}")


def _check_anthropic_history(messages: list[dict[str, Any]]) -> None:
    if not messages or messages[0]["role"] != "user":
        raise Rejected(400, "messages: the first message must use the user role")
    pending: set[str] = set()
    for index, message in enumerate(messages):
        expected = "user" if index % 2 == 0 else "assistant"
        if message["role"] != expected:
            raise Rejected(400, "messages: roles must alternate between user and assistant")
        blocks = message["content"] if isinstance(message["content"], list) else []
        results = {b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"}
        if results - pending or (pending and message["role"] == "user" and pending - results):
            raise Rejected(
                400,
                f"messages.{index}: tool_use ids were found without "
                f"tool_result blocks immediately after: {sorted(pending)}",
            )
        pending = {b["id"] for b in blocks if b.get("type") == "tool_use"}
        for block in blocks:
            if block.get("type") == "tool_use":
                _check_name(ANTHROPIC_NAME, block["name"], f"messages.{index}.content.name")
    if pending:
        raise Rejected(400, "the last assistant tool_use blocks have no tool_result")


def _check_gemini_schema(schema: Any, where: str = "parameters") -> None:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in GEMINI_REJECTS:
                raise Rejected(
                    400,
                    f'Invalid JSON payload received. Unknown name "{key}" '
                    f"at '{where}': Cannot find field.",
                )
            _check_gemini_schema(value, f"{where}.{key}")
        if isinstance(schema.get("type"), list):
            raise Rejected(400, f"Invalid value at '{where}.type': a list is not a Type")
    elif isinstance(schema, list):
        for item in schema:
            _check_gemini_schema(item, where)


def _check_gemini_history(contents: list[dict[str, Any]]) -> None:
    called: list[str] = []
    for index, content in enumerate(contents):
        if content.get("role") not in ("user", "model") or not content.get("parts"):
            raise Rejected(400, f"contents[{index}] needs a role (user or model) and parts")
        responses = [
            p["functionResponse"]["name"] for p in content["parts"] if "functionResponse" in p
        ]
        if sorted(responses) != sorted(called) and (responses or content["role"] == "user"):
            raise Rejected(
                400,
                "Please ensure that the number of function response parts is "
                "equal to the number of function call parts of the function "
                "call turn.",
            )
        called = [p["functionCall"]["name"] for p in content["parts"] if "functionCall" in p]
        for name in called:
            _check_name(GEMINI_NAME, name, f"contents[{index}].parts.functionCall.name")
