"""Which models take tools: the provider registry's rules and the override (requirement 12;
issue 54: reasoning models that take tools are no longer refused)."""

import pytest

from zork_mcp.builders.providers import MODELS_WITHOUT_TOOLS
from zork_mcp.domain.errors import MCPError
from zork_mcp.domain.tools.model_support import ensure_tool_support, supports_tool_calling

RULES = MODELS_WITHOUT_TOOLS


@pytest.mark.parametrize(
    "model",
    [
        "o1-mini",
        "openai/o1-mini",
        "openai/o1-mini:beta",
        "o1-mini-2024-09-12",
        "O1-Preview",
        "openrouter/openai/o1-preview",  # only the last path segment names the model
        "chatgpt-4o-latest",
    ],
)
def test_the_models_the_registry_names_take_no_tools_and_the_refusal_says_why(model):
    assert supports_tool_calling(model, RULES) is False
    assert supports_tool_calling(model, RULES, force=True) is True
    with pytest.raises(MCPError) as refused:
        ensure_tool_support(model, RULES)
    said = str(refused.value)
    assert "platform.openai.com/docs/models/" in said and "checked 2026-11-28" in said
    assert "force_tool_support = true" in said and "--no-mcp" in said


@pytest.mark.parametrize(
    "model",
    [
        "o1",
        "openai/o1",
        "o3",
        "o3-mini",
        "o3-pro",
        "openai/o4-mini",
        "x-ai/grok-4-fast-reasoning",
        "deepseek-reasoner",
        "deepseek/deepseek-reasoner",
        "gpt-5.4",
        "gpt-5.6-sol",
        "openai/gpt-6-luna",
        "claude-sonnet-4-5",
        "anthropic/claude-haiku-5.5",
        "gemini-2.5-flash",
        "google/gemini-3.5-flash-lite",
        "x-ai/grok-4.1-fast-reasoning",
        "openai/gpt-4o-mini",
        "anthropic/claude-3.5-sonnet",
        "local-model",
        "o1-minister",  # a name that only begins like one
    ],
)
def test_reasoning_models_that_take_tools_and_unknown_models_are_accepted(model):
    assert supports_tool_calling(model, RULES) is True
    ensure_tool_support(model, RULES)


@pytest.mark.parametrize(
    ("model", "instead"),
    [
        ("o1-mini", "e.g. gpt-6-luna,"),  # --provider openai (or local): bare names
        ("openai/o1-mini", "e.g. openai/gpt-6-luna,"),  # OpenRouter's, and Inspect's
        ("openai/o1-mini:beta", "e.g. openai/gpt-6-luna,"),
        ("openrouter/openai/o1-preview", "e.g. openrouter/openai/gpt-6-luna,"),
    ],
)
def test_a_refusal_names_the_rule_as_written_and_a_model_in_the_users_own_naming(model, instead):
    """Issue 67: it showed the rule's regular expression as Python's repr ('o1-mini\\\\b')
    and suggested OpenRouter's `openai/gpt-4.1-mini` to a user of --provider openai."""
    with pytest.raises(MCPError) as refused:
        ensure_tool_support(model, RULES)
    said = str(refused.value)
    assert "\\" not in said, said
    assert "the provider registry says o1-" in said
    assert instead in said
    assert "a sweep's --mcp off" in said and "-T mcp_config=off" in said
