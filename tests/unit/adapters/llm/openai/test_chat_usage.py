"""Usage sums tokens and, where providers report it, cost."""

from zork_mcp.adapters.llm.openai.chat import parse_usage
from zork_mcp.domain.llm.messages import Usage


def test_usage_sums_tokens_and_known_costs():
    total = Usage(10, 5, 2, 0.25) + Usage(1, 1, 0, None) + Usage(3, 2, 1, 0.5)
    assert total == Usage(14, 8, 3, 0.75)


def test_usage_without_any_reported_cost_has_none():
    assert (Usage(1, 2) + Usage(3, 4)).cost_usd is None


def test_openrouter_usage_accounting_reports_cost():
    usage = parse_usage(
        {
            "prompt_tokens": 194,
            "completion_tokens": 2,
            "cost": 0.000095,
            "prompt_tokens_details": {"cached_tokens": 0},
        }
    )
    assert usage == Usage(194, 2, 0, 0.000095)


def test_a_non_numeric_cost_is_ignored():
    assert parse_usage({"prompt_tokens": 1, "cost": "free"}).cost_usd is None
    assert parse_usage({"prompt_tokens": 1, "cost": True}).cost_usd is None


def test_usage_adds_every_counter():
    total = Usage(10, 5, 2) + Usage(1, 2, 3)
    assert (total.prompt_tokens, total.completion_tokens, total.cached_tokens) == (11, 7, 5)
    assert total.total_tokens == 18
