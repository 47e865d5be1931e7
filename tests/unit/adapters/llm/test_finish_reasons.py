"""Each LLM adapter reads its own provider's word for why it stopped into the domain's
FinishReason, and keeps the word itself for reports; a word its table lacks reads as None."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from zork_mcp.adapters.llm.anthropic import parse_message
from zork_mcp.adapters.llm.gemini import GeminiLLM
from zork_mcp.adapters.llm.openai.chat import parse_completion
from zork_mcp.adapters.llm.openai.responses import parse_response
from zork_mcp.domain.llm.messages import FinishReason, LLMRequest, LLMResponse, user_message
from zork_mcp.domain.tools.wire_names import WireNameMap

NAMES = WireNameMap([])
R = FinishReason


def chat(word: str) -> LLMResponse:
    choice = {"message": {"role": "assistant", "content": None}, "finish_reason": word}
    return parse_completion({"choices": [choice]}, NAMES, "openrouter")


def responses(word: str) -> LLMResponse:
    if word == "completed":
        return parse_response({"status": "completed", "output": []}, NAMES)
    answer = {"status": "incomplete", "incomplete_details": {"reason": word}, "output": []}
    return parse_response(answer, NAMES)


def anthropic(word: str) -> LLMResponse:
    return parse_message({"content": [], "stop_reason": word}, NAMES, forced=False)


def gemini(word: str) -> LLMResponse:
    llm = GeminiLLM(None, model="gemini-x", api_key="k", base_url="https://gemini.invalid")  # type: ignore[arg-type]
    answer = {"candidates": [{"content": {"parts": []}, "finishReason": word}]}
    return llm.parse(answer, NAMES, LLMRequest((user_message("u"),)))


READERS: dict[str, Callable[[str], LLMResponse]] = {
    "openai": chat,
    "openai-responses": responses,
    "anthropic": anthropic,
    "gemini": gemini,
}
CASES: list[tuple[str, str, Any]] = [
    ("openai", "stop", R.STOP),
    ("openai", "length", R.LENGTH),
    ("openai", "tool_calls", R.TOOL_CALLS),
    ("openai", "content_filter", R.CONTENT_FILTER),
    ("openai", "error", R.ERROR),  # OpenRouter's, when the upstream failed mid-answer
    ("openai", "abort", None),  # a local server's own
    ("openai-responses", "completed", R.STOP),
    ("openai-responses", "max_output_tokens", R.LENGTH),
    ("openai-responses", "content_filter", R.CONTENT_FILTER),
    ("openai-responses", "something_new", None),
    ("anthropic", "end_turn", R.STOP),
    ("anthropic", "stop_sequence", R.STOP),
    ("anthropic", "max_tokens", R.LENGTH),
    ("anthropic", "refusal", R.CONTENT_FILTER),
    ("anthropic", "something_new", None),
    ("gemini", "STOP", R.STOP),
    ("gemini", "MAX_TOKENS", R.LENGTH),
    ("gemini", "SAFETY", R.CONTENT_FILTER),
    ("gemini", "RECITATION", R.CONTENT_FILTER),
    ("gemini", "MALFORMED_FUNCTION_CALL", R.ERROR),
    ("gemini", "OTHER", None),
]


@pytest.mark.parametrize(("protocol", "word", "reason"), CASES)
def test_the_providers_word_becomes_the_domains_reason_and_is_kept(protocol, word, reason):
    response = READERS[protocol](word)
    assert response.content is None and response.tool_calls is None
    assert (response.finish_reason, response.provider_reason) == (reason, word)


def test_every_adapter_says_nothing_of_a_reason_its_provider_did_not_give():
    choice = {"message": {"role": "assistant", "content": "hi"}}
    assert parse_completion({"choices": [choice]}, NAMES, "local").finish_reason is None
    assert parse_message({"content": []}, NAMES, forced=False).provider_reason is None
