"""What the LLM adapters share in rendering the domain's typed conversation on their wire."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from zork_mcp.domain.llm.messages import AssistantToolCalls, LLMRequest, Message

# The cache_control a breakpoint of the request's CachePolicy carries (Anthropic's, also
# through OpenRouter).
EPHEMERAL: Mapping[str, str] = {"type": "ephemeral"}


def arguments_object(text: str) -> dict[str, Any]:
    """A tool call's arguments as an object; text that is not one is kept under `raw`."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {"raw": text}
    return value if isinstance(value, dict) else {"value": value}


def text_block(text: str, *, marked: bool) -> dict[str, Any]:
    """A text block (Anthropic's, and a content part OpenRouter passes on to it), carrying
    cache_control when it is a breakpoint of the request's CachePolicy."""
    block: dict[str, Any] = {"type": "text", "text": text}
    if marked:
        block["cache_control"] = dict(EPHEMERAL)
    return block


def call_names(messages: Iterable[Message]) -> dict[str, str]:
    """tool_call_id -> canonical tool name, from the assistant messages."""
    return {
        call.id: call.function.name
        for message in messages
        if isinstance(message, AssistantToolCalls)
        for call in message.calls
    }


def canonical_names(request: LLMRequest) -> list[str]:
    """Every tool name the request mentions: offered tools and calls in the history."""
    offered = [tool.name for tool in request.tools or ()]
    return offered + list(call_names(request.messages).values())


def merge_turns(turns: Sequence[tuple[str, list[Any]]]) -> list[tuple[str, list[Any]]]:
    """Consecutive turns of one role become one turn (providers want roles to alternate)."""
    merged: list[tuple[str, list[Any]]] = []
    for role, parts in turns:
        if merged and merged[-1][0] == role:
            merged[-1][1].extend(parts)
        else:
            merged.append((role, list(parts)))
    return merged


def limit_cache_markers(blocks: Sequence[dict[str, Any]], limit: int) -> None:
    """Keep `cache_control` on at most `limit` of `blocks` (in request order), where it pays.

    A request's CachePolicy marks every system and user message (requirement 4.7), but
    Anthropic (also through OpenRouter) takes at most 4 breakpoints. A breakpoint caches the
    whole prefix up to it, so the first (the system prompt, stable across turns) and the
    latest ones (the longest prefix of a growing conversation) stay; the markers between
    them go.
    """
    marked = [block for block in blocks if "cache_control" in block]
    if len(marked) <= limit:
        return
    keep = [marked[0], *marked[len(marked) - (limit - 1) :]] if limit > 1 else marked[:limit]
    for block in marked:
        if not any(block is kept for kept in keep):
            del block["cache_control"]
