"""Every call priced (issue 53): each provider adapter's usage, priced by our one pricer,
costs what the price library itself makes of the provider's raw answer (its own usage
extractors), cached and uncached; the parts add up to the total; a provider's own cost
wins; what no price list knows is "unpriced" with the reason, never 0."""

from __future__ import annotations

import pytest
from genai_prices import extract_usage
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.llm import anthropic, gemini
from zork_mcp.adapters.llm.openai import chat, responses
from zork_mcp.adapters.llm.prices import NO_PRICE_LIST, PricedLLM, priced
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse, Usage, UserMessage

# Raw answers as each API documents its usage object; the model each names.
ANSWERS = {
    "openai chat": ("openai", "chat", "gpt-4o", chat.parse_usage, "usage", {
        "model": "gpt-4o", "usage": {"prompt_tokens": 3100, "completion_tokens": 40,
                                     "prompt_tokens_details": {"cached_tokens": 2800}}}),
    "openai responses": ("openai", "responses", "o3", responses.parse_usage, "usage", {
        "model": "o3", "usage": {"input_tokens": 3100, "output_tokens": 400,
                                 "input_tokens_details": {"cached_tokens": 1024},
                                 "output_tokens_details": {"reasoning_tokens": 300}}}),
    "anthropic": ("anthropic", "default", "claude-sonnet-4-5", anthropic._usage, "usage", {
        "model": "claude-sonnet-4-5", "usage": {"input_tokens": 300, "output_tokens": 40,
                                               "cache_read_input_tokens": 2000,
                                               "cache_creation_input_tokens": 800}}),
    "gemini": ("google", "default", "gemini-2.5-flash", gemini._usage, "usageMetadata", {
        "modelVersion": "gemini-2.5-flash", "usageMetadata": {
            "promptTokenCount": 3100, "candidatesTokenCount": 40, "thoughtsTokenCount": 200,
            "cachedContentTokenCount": 2048}}),
    "openai chat, uncached": ("openai", "chat", "gpt-4o-mini", chat.parse_usage, "usage", {
        "model": "gpt-4o-mini", "usage": {"prompt_tokens": 3100, "completion_tokens": 40}}),
}  # fmt: skip


@pytest.mark.parametrize("answer", ANSWERS)
def test_each_adapters_usage_costs_what_the_price_library_makes_of_the_raw_answer(answer):
    provider, flavor, model, parse, key, body = ANSWERS[answer]
    ours = priced(parse(body[key]), provider, model)
    theirs = extract_usage(body, provider_id=provider, api_flavor=flavor).calc_price()
    assert ours.cost_usd == pytest.approx(float(theirs.total_price), rel=1e-9)
    assert ours.cost_parts is not None and ours.unpriced is None
    assert ours.cost_parts.total == pytest.approx(ours.cost_usd, rel=1e-9)
    assert ours.cost_parts.output == pytest.approx(float(theirs.output_price), rel=1e-9)


def test_anthropic_cache_writes_are_priced_at_their_own_rate():
    usage = anthropic._usage(ANSWERS["anthropic"][-1]["usage"])
    parts = priced(usage, "anthropic", "claude-sonnet-4-5").cost_parts
    assert usage.cache_write_tokens == 800 and parts is not None
    assert parts.cache_write == pytest.approx(800 * 3.75e-6)  # 1.25x the $3 input price
    assert parts.cached_input == pytest.approx(2000 * 0.3e-6)
    assert parts.input == pytest.approx(300 * 3e-6)


@given(
    prompt=st.integers(1, 400_000),
    cached=st.integers(0, 400_000),
    written=st.integers(0, 400_000),
    output=st.integers(0, 50_000),
    model=st.sampled_from([("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-4o"),
                           ("google", "gemini-2.5-pro"), ("openrouter", "openai/gpt-4o")]),
)  # fmt: skip
def test_the_parts_add_up_to_the_total_and_none_is_negative(prompt, cached, written, output, model):
    cached, written = min(cached, prompt), min(written, prompt - min(cached, prompt))
    usage = Usage(prompt, output, cached, cache_write_tokens=written)
    cost = priced(usage, *model)
    assert cost.cost_parts is not None and cost.cost_usd is not None
    assert cost.cost_parts.total == pytest.approx(cost.cost_usd, rel=1e-9, abs=1e-12)
    parts = cost.cost_parts
    assert min(parts.input, parts.cached_input, parts.cache_write, parts.output) >= -1e-12


def test_a_providers_own_cost_wins_and_is_split_as_the_price_list_splits_it():
    reported = chat.parse_usage({"prompt_tokens": 3000, "completion_tokens": 100,
                                 "prompt_tokens_details": {"cached_tokens": 2000},
                                 "cost": 0.0042})  # fmt: skip
    cost = priced(reported, "openrouter", "anthropic/claude-haiku-5.5")
    assert cost.cost_usd == 0.0042 and cost.cost_parts is not None
    assert cost.cost_parts.total == pytest.approx(0.0042)
    listed = priced(Usage(3000, 100, 2000), "openrouter", "anthropic/claude-haiku-5.5").cost_parts
    assert listed is not None
    assert cost.cost_parts.output / cost.cost_parts.total == pytest.approx(
        listed.output / listed.total
    )


def test_what_no_price_list_knows_is_unpriced_with_the_reason_never_0():
    unknown = priced(Usage(100, 10), "openai", "gpt-nobody-knows")
    assert unknown.cost_usd is None and unknown.cost_parts is None
    assert "no price for openai 'gpt-nobody-knows'" in (unknown.unpriced or "")
    local = priced(Usage(100, 10), PROVIDERS["local"].prices, "llama")
    assert local.cost_usd is None and local.unpriced == NO_PRICE_LIST
    assert (unknown + local).cost_usd is None and (unknown + local).unpriced


def test_every_hosted_provider_has_a_price_list_name_its_default_model_is_priced_under():
    for provider in PROVIDERS.values():
        if provider.hosted:
            cost = priced(Usage(1000, 100), provider.prices, provider.default_model)
            assert cost.unpriced is None and cost.cost_usd, provider.name


class _Answering:
    model = "claude-sonnet-4-5"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        return LLMResponse("north", model="claude-sonnet-4-5-20250929", usage=Usage(1000, 10))


async def test_a_priced_llm_prices_every_answer_by_the_model_that_answered():
    llm = PricedLLM(_Answering(), "anthropic")
    response = await llm.complete(LLMRequest((UserMessage("go"),)))
    assert response.usage is not None and response.usage.cost_usd == pytest.approx(
        1000 * 3e-6 + 10 * 15e-6
    )
