import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, reasoning_models, tool_models
from zork_mcp.domain.errors import MCPError
from zork_mcp.domain.tools.model_support import ensure_tool_support, supports_tool_calling


@given(reasoning_models)
def test_p13_model_compatibility_detection(model):
    """Property 13: Model Compatibility Detection

    *For any* model name, the compatibility check should correctly identify whether the model
    supports tool calling based on pattern matching.

    Validates: Requirements 4.5, 12.1, 12.2, 12.3
    """
    assert not supports_tool_calling(model)
    assert supports_tool_calling(model, force=True)
    with pytest.raises(MCPError, match="force_tool_support"):
        ensure_tool_support(model)


@given(tool_models)
def test_p13_tool_capable_models_are_accepted(model):
    assert supports_tool_calling(model)
    ensure_tool_support(model)


@given(st.text(TEXT, max_size=40))
def test_p13_the_override_accepts_any_model(model):
    assert supports_tool_calling(model, force=True)
    ensure_tool_support(model, force=True)
