import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, no_tool_models, tool_models
from zork_mcp.builders.providers import MODELS_WITHOUT_TOOLS, PROVIDERS
from zork_mcp.domain.errors import MCPError
from zork_mcp.domain.tools.model_support import (
    ensure_tool_support,
    refusing_rule,
    supports_tool_calling,
)

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


@given(no_tool_models, st.sampled_from(sorted(PROVIDERS)))
def test_p13_a_model_is_matched_once_when_resolved_and_each_turn_reads_the_rule(model, name):
    """The registry matches the name once, as it resolves the run's model; what a turn's
    request may offer carries the rule that refuses it, whichever provider serves it."""
    resolved = PROVIDERS[name].resolve(model)
    assert not resolved.profile.takes_tools
    assert resolved.offer_limits().refused_tools == refusing_rule(model, RULES)


@given(tool_models, st.sampled_from(sorted(PROVIDERS)))
def test_p13_a_model_that_takes_tools_resolves_with_no_rule(model, name):
    assert PROVIDERS[name].resolve(model).offer_limits().refused_tools is None
