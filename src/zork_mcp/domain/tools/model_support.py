"""Does a model take tools? Pattern matching on its name against the provider registry's
list of models that take none (requirement 12), with an override (`force_tool_support`).

The domain holds no list of its own: `builders/providers.py` (`MODELS_WITHOUT_TOOLS`) does,
each rule with where its provider says so and when that was checked. A model no rule names
is taken to take tools (a wrong guess surfaces as the provider's own error, which names it).
The match is made once, when the registry resolves the run's model (its profile's
`refused_tools`); each turn only reads what it found (`refuse_without_tools`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from zork_mcp.domain.errors import MCPError


@dataclass(frozen=True)
class NoTools:
    """The model `name` (and its dated versions: `o1-mini-2024-09-12`) takes no tools, as
    `source` says (checked on `checked`); `instead` is one of its maker's that takes them."""

    name: str
    source: str
    checked: str
    instead: str

    def matches(self, model: str) -> bool:
        """Its bare name (lowercase, after the last `/`, before the first `:`) is `name`, or
        begins with it and a character no name goes on with (`-`, `.`)."""
        return re.match(re.escape(self.name.lower()) + r"\b", bare_name(model)) is not None


def bare_name(model: str) -> str:
    """`openai/o1-mini:beta` -> `o1-mini`."""
    return model.lower().rsplit("/", 1)[-1].split(":", 1)[0]


def in_naming_of(model: str, name: str) -> str:
    """`name` written as `model` is, with its provider prefix (`openai/o1-mini`:
    `openai/<name>`); `o1-mini`: `<name>`."""
    return model[: model.rfind("/") + 1] + name


def refusing_rule(model: str, rules: Sequence[NoTools]) -> NoTools | None:
    return next((rule for rule in rules if rule.matches(model)), None)


def supports_tool_calling(
    model: str, rules: Sequence[NoTools] = (), *, force: bool = False
) -> bool:
    """False for a model a rule names, True otherwise; `force` skips the check (12.4)."""
    return force or refusing_rule(model, rules) is None


def ensure_tool_support(model: str, rules: Sequence[NoTools] = (), *, force: bool = False) -> None:
    """Raise MCPError before the first tool call if the model takes no tools (12.5), naming
    the rule that says so and how to override it."""
    refuse_without_tools(model, refusing_rule(model, rules), force=force)


def refuse_without_tools(model: str, rule: NoTools | None, *, force: bool = False) -> None:
    """`ensure_tool_support` with the rule already found (None: the model takes tools)."""
    if rule is not None and not force:
        raise MCPError(
            f"Model '{model}' takes no tools: the provider registry says {rule.name} takes "
            f"none ({rule.source}; checked {rule.checked}).\n"
            "Please either:\n"
            "  1. play without tools: turn MCP off (--no-mcp; a sweep's --mcp off; an Inspect "
            "task's -T mcp_config=off),\n"
            f"  2. use a model that takes tools, e.g. {in_naming_of(model, rule.instead)}, or\n"
            "  3. set force_tool_support = true in [tool.zorkgpt.mcp] of the run's "
            "pyproject.toml if the registry is wrong about this model."
        )
