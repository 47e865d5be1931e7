"""Tokens estimated from text, the one rule every estimate uses (the history's budget, the
context budget, a call's estimate under a run's budget, `--dry-run`): 4 characters a token,
OpenAI's rule of thumb for English text, and 4 tokens a message for its role and framing
(OpenAI's cookbook counts 3-4). No tokenizer's vocabulary is downloaded."""

from __future__ import annotations

import json
from collections.abc import Sequence

from zork_mcp.domain.llm.messages import Message, to_openai_dict

CHARS_PER_TOKEN = 4
MESSAGE_TOKENS = 4


def tokens_in(chars: int) -> int:
    """Tokens that many characters make (rounded up)."""
    return -(-chars // CHARS_PER_TOKEN)


def text_tokens(text: str) -> int:
    """A message of this text: its characters' tokens and its framing's."""
    return tokens_in(len(text)) + MESSAGE_TOKENS


def messages_tokens(messages: Sequence[Message]) -> int:
    """Messages as they weigh in their OpenAI-format JSON."""
    return tokens_in(
        sum(len(json.dumps(to_openai_dict(m), ensure_ascii=False, default=str)) for m in messages)
    )
