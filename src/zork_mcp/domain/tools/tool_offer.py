"""Which discovered tools a request offers: a user's filters per server, then the provider's
limits (at most so many tools, and a budget for their definitions).

The rule: tools are taken in config order of their servers, each server's in its listing
order; a tool is offered while the count stays within the provider's limit and its
definition fits what is left of the budget, and left out otherwise (a later, smaller tool
may still fit). Every left-out tool is named once per episode (ToolNotices).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Protocol, TypeVar

from zork_mcp.domain.tools.model_support import NoTools
from zork_mcp.domain.tools.tool_schema import ToolSpec, definition_json, tool_definition

DEFINITION_BUDGET_CHARS = 200_000  # ~50k tokens of tool definitions in one request


@dataclass(frozen=True)
class ToolFilter:
    """A server's tools the user allows: those matching `include` (all when None) and no
    `exclude` pattern. Patterns are shell globs (`think*`, `*_debug`), matched case-sensitively
    against the tool's name on its server."""

    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    def allows(self, tool: str) -> bool:
        if any(fnmatchcase(tool, pattern) for pattern in self.exclude):
            return False
        return self.include is None or any(fnmatchcase(tool, p) for p in self.include)

    def merged(self, other: ToolFilter) -> ToolFilter:
        """`other` (set later, closer to the run) picks the includes; excludes add up."""
        include = other.include if other.include is not None else self.include
        return ToolFilter(include, tuple(dict.fromkeys(self.exclude + other.exclude)))


ALLOW_ALL = ToolFilter()


@dataclass(frozen=True)
class OfferLimits:
    """What one request may offer: the provider's documented tool count (None: no documented
    limit), our budget for the definitions' JSON text, and whether the model takes any."""

    max_tools: int | None = None
    definition_budget_chars: int = DEFINITION_BUDGET_CHARS
    provider: str = "the provider"
    refused_tools: NoTools | None = None  # the registry's rule that the model takes none


@dataclass(frozen=True)
class LeftOut:
    tool: str  # canonical name
    reason: str

    @property
    def key(self) -> str:
        return f"{self.tool}\0{self.reason}"


@dataclass(frozen=True)
class Offer:
    offered: tuple[ToolSpec, ...]
    left_out: tuple[LeftOut, ...] = ()


def choose_offered(specs: Iterable[ToolSpec], limits: OfferLimits) -> Offer:
    """The tools a request offers under `limits`, and those left out with the reason."""
    offered: list[ToolSpec] = []
    left_out: list[LeftOut] = []
    budget = limits.definition_budget_chars
    for spec in specs:
        size = definition_chars(spec)
        if limits.max_tools is not None and len(offered) >= limits.max_tools:
            reason = f"{limits.provider} takes at most {limits.max_tools} tools in a request"
            left_out.append(LeftOut(spec.canonical_name, reason))
        elif size > budget:
            reason = (
                f"its definition ({size} characters) is over what is left of the "
                f"{limits.definition_budget_chars}-character budget for tool definitions"
            )
            left_out.append(LeftOut(spec.canonical_name, reason))
        else:
            offered.append(spec)
            budget -= size
    return Offer(tuple(offered), tuple(left_out))


def definition_chars(spec: ToolSpec) -> int:
    """The characters the tool's definition adds to a request's measure (`definition_json`)."""
    return len(definition_json(tool_definition(spec)))


class Notice(Protocol):
    @property
    def key(self) -> str: ...


N = TypeVar("N", bound=Notice)


@dataclass
class ToolNotices:
    """What an episode has already said about its tools, so each is said once, not every turn."""

    _said: set[str] = field(default_factory=set)

    @property
    def said(self) -> frozenset[str]:
        """The keys of every notice said so far (a checkpoint keeps them)."""
        return frozenset(self._said)

    def unsaid(self, notices: Iterable[N]) -> list[N]:
        """The notices not said before; they count as said from now on."""
        fresh = []
        for notice in notices:
            if notice.key not in self._said:
                self._said.add(notice.key)
                fresh.append(notice)
        return fresh
