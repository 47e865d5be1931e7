"""Does a model support tool calling? A name-pattern heuristic with an override (requirement 12)."""

from __future__ import annotations

from zork_mcp.domain.errors import MCPError

# Reasoning models that reject tools (design: Step 4, "Verify model compatibility").
NO_TOOL_PATTERNS = ("o1-", "o3-", "qwq", "deepseek-r1", "deepseek-reasoner", "-reasoning", "r1-")
NO_TOOL_NAMES = frozenset({"o1", "o3"})


def supports_tool_calling(model: str, *, force: bool = False) -> bool:
    """False for known reasoning models, True otherwise; `force` skips the check (12.4)."""
    if force:
        return True
    name = model.lower()
    if any(pattern in name for pattern in NO_TOOL_PATTERNS):
        return False
    # Known tool families (gpt-4, claude-3, gemini, mistral, llama-3.1, ...) and unknown
    # models alike are assumed to work; a wrong guess surfaces as the provider's own error.
    return _bare_name(name) not in NO_TOOL_NAMES


def _bare_name(model: str) -> str:
    """`openai/o1:beta` -> `o1`."""
    return model.rsplit("/", 1)[-1].split(":", 1)[0]


def ensure_tool_support(model: str, *, force: bool = False) -> None:
    """Raise MCPError before the first tool call if the model cannot take tools (12.5)."""
    if not supports_tool_calling(model, force=force):
        raise MCPError(
            f"Model '{model}' does not support tool calling.\n"
            f"Please either:\n"
            f"  1. set enabled = false in [tool.zorkgpt.mcp] of pyproject.toml,\n"
            f"  2. use a model that takes tools (e.g. openai/gpt-4o-mini), or\n"
            f"  3. set force_tool_support = true if this detection is wrong."
        )
