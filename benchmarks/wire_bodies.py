"""The request bodies each provider's adapter sends, as the CLI builds it, digested: run it on
two trees to show a change sent the same bytes (a refactor of how a model is resolved, how a
request is measured, how options are built).

For each provider of the registry, its default model and OpenAI's families (each API it may
be asked for), three requests go through `llm_session` as `zork-mcp` builds it from its
flags: a first turn offering tools, a turn after a tool call and its result, and the forced
final answer with its JSON schema. Each body reaches the provider's local peer, which checks
it as the provider would, and is kept; the digest is over every body in order.

    python -m benchmarks.wire_bodies [--list] [--quick]   # --list: each set-up's digest

Run from one checkout with PYTHONPATH naming another checkout's `src` first, it digests what
that checkout's code sends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import io

import httpx

from tests.support.llm_peers import peer_for
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.app.cli import options_from, parser
from zork_mcp.builders.llm import llm_session, llm_settings
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.llm.messages import (
    LLMRequest,
    RetryStats,
    ToolChoice,
    assistant_tool_calls_message,
    initial_messages,
    tool_message,
)
from zork_mcp.domain.loop.agent_response import final_answer_format
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec, tool_definitions

TOOL = "notes.add_note"
NOTE = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS = tool_definitions([ToolSpec("notes", "add_note", "Keep a note for later turns.", NOTE)])
OPENAI_MODELS = ("gpt-4.1-mini", "gpt-5-mini", "gpt-6-sol", "gpt-6-astra", "gpt-5.1-codex", "o3")


def set_ups(quick: bool = False) -> list[list[str]]:
    """Each provider's default model, and OpenAI's families through each API they take
    (`quick`: the defaults only)."""
    runs = [["--provider", name] for name in PROVIDERS]
    for model in () if quick else OPENAI_MODELS:
        for api in (None, "chat", "responses"):
            flags = ["--provider", "openai", "--model", model]
            runs.append(flags if api is None else [*flags, "--openai-api", api])
    return runs


def requests() -> list[LLMRequest]:
    first = tuple(initial_messages("You play Zork.", "West of House. What now?"))
    call = tool_calls_reply((TOOL, {"text": "mailbox here"}))
    after = (
        *first,
        assistant_tool_calls_message(call),
        tool_message(call.tool_calls[0].id, ToolCallResult.success("noted")),
    )
    return [
        LLMRequest(first, TOOLS, ToolChoice.AUTO),
        LLMRequest(after, TOOLS, ToolChoice.AUTO),
        LLMRequest(after, response_format=final_answer_format()),
    ]


async def bodies(flags: list[str]) -> list[bytes] | None:
    """The bodies sent for `flags` (None: the CLI refuses them, as it should some APIs)."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            options = options_from(parser().parse_args(flags))
    except SystemExit:
        return None
    provider = PROVIDERS[flags[flags.index("--provider") + 1]]
    key = peer_for(provider.protocol, [], [TOOL]).api_key  # the key every peer expects
    settings = llm_settings(options, environ={provider.key_variables[0]: key})
    sent: list[bytes] = []

    def handler(http: httpx.Request) -> httpx.Response:
        """The peer of the API the body went to, as strict as the provider."""
        sent.append(http.content)
        responses = http.url.path.endswith("/responses")
        peer = peer_for("openai-responses" if responses else provider.protocol,
                        [action_reply("north")], [TOOL])  # fmt: skip
        status, headers, body = peer.handle(http.url.path, dict(http.headers), http.content)
        if peer.rejections:
            raise SystemExit(f"{' '.join(flags)}: the peer refused it: {peer.rejections}")
        return httpx.Response(status, headers=headers, content=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        for request in requests():
            async with llm_session(settings, RetryStats(), client)() as llm:
                await llm.complete(request)
    return sent


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--list", action="store_true", help="each set-up's own digest")
    arguments.add_argument("--quick", action="store_true", help="each provider's default only")
    chosen = arguments.parse_args()
    runs = set_ups(chosen.quick)
    total, count = hashlib.sha256(), 0
    for flags in runs:
        sent = asyncio.run(bodies(flags))
        digest = hashlib.sha256(b"\0".join(sent or [b"refused"])).hexdigest()[:16]
        total.update(digest.encode())
        count += len(sent or ())
        if chosen.list:
            print(f"{digest}  {' '.join(flags)}")
    print(f"{count} bodies from {len(runs)} set-ups: sha256 {total.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
