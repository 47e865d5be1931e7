import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, no_tool_models, tool_models
from zork_mcp.builders.providers import MODELS_WITHOUT_TOOLS, PROVIDERS
from zork_mcp.domain.errors import MCPError
from zork_mcp.domain.tools.model_support import ensure_tool_support, supports_tool_calling

RULES = MODELS_WITHOUT_TOOLS


@given(no_tool_models)
def test_p13_model_compatibility_detection(model):
    """Property 13: Model Compatibility Detection

    *For any* model name, the compatibility check should correctly identify whether the model
    supports tool calling based on pattern matching.

    Validates: Requirements 4.5, 12.1, 12.2, 12.3

    The patterns are the provider registry's models that take no tools (each with its
    provider's word and date); reasoning models that take tools (o1, o3, o3-pro, o4-mini,
    grok-4-fast-reasoning, deepseek-reasoner) are accepted.
    """
    assert not supports_tool_calling(model, RULES)
    assert supports_tool_calling(model, RULES, force=True)
    with pytest.raises(MCPError, match="force_tool_support") as refused:
        ensure_tool_support(model, RULES)
    assert "the provider registry says" in str(refused.value)
    assert "checked 20" in str(refused.value)


@given(tool_models)
def test_p13_tool_capable_models_are_accepted(model):
    assert supports_tool_calling(model, RULES)
    ensure_tool_support(model, RULES)


@given(st.text(TEXT, max_size=40))
def test_p13_the_override_accepts_any_model(model):
    assert supports_tool_calling(model, RULES, force=True)
    ensure_tool_support(model, RULES, force=True)


def test_p13_every_provider_offers_the_registry_rules():
    assert all(p.offer_limits().no_tools == RULES for p in PROVIDERS.values())
