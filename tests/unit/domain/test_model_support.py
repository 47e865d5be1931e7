"""The model tool-support heuristic and its override (requirement 12)."""

import pytest

from zork_mcp.domain.errors import MCPError
from zork_mcp.domain.tools.model_support import ensure_tool_support, supports_tool_calling


@pytest.mark.parametrize(
    "model",
    [
        "deepseek/deepseek-r1",
        "deepseek-reasoner",
        "openai/o1",
        "openai/o1-mini",
        "openai/o1:beta",
        "openrouter/openai/o1",  # only the last path segment names the model
        "o3:beta:free",  # every variant tag after the first colon is cut off
        "o3-mini",
        "qwen/qwq-32b",
        "x-ai/grok-3-reasoning",
        "deepseek/deepseek-r1-distill-llama-70b",
    ],
)
def test_reasoning_models_do_not_take_tools(model):
    assert supports_tool_calling(model) is False
    assert supports_tool_calling(model, force=True) is True
    with pytest.raises(MCPError, match="force_tool_support"):
        ensure_tool_support(model)


@pytest.mark.parametrize(
    "model",
    [
        "openai/gpt-4o-mini",
        "gpt-3.5-turbo",
        "anthropic/claude-3.5-sonnet",
        "google/gemini-2.5",
        "mistralai/mixtral-8x7b",
        "meta-llama/llama-3.1-70b",
        "cohere/command-r",
        "local-model",
        "openai/gpt-4o",
    ],
)
def test_tool_models_and_unknown_models_take_tools(model):
    assert supports_tool_calling(model) is True
    ensure_tool_support(model)
