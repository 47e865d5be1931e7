"""The `sequentialthinking` tool, defined once: its models, schemas and behaviour.

Deriving a tool's schemas from its signature is most of a small server's start-up (~6 ms
of pydantic work, plus ~5 ms for the models). This module holds only definitions, no
state, so the fork server preloads it and a forked reasoning server builds none of it;
the state a server keeps (its thoughts) lives in `Thinking`, one per server run.
"""

import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

DESCRIPTION = """A detailed tool for dynamic and reflective problem-solving through thoughts.
Each thought can build on, question, or revise previous insights as understanding deepens.
Use it to break a puzzle into steps, plan with room for revision, and check a hypothesis
before committing to an action. Adjust totalThoughts as you go, mark revisions
(isRevision, revisesThought) and branches (branchFromThought, branchId), and only set
nextThoughtNeeded to false when a satisfactory answer is reached."""


class ThoughtProgress(BaseModel):
    """The sequentialthinking wire format (camelCase, as the npm server answers)."""

    thoughtNumber: int
    totalThoughts: int
    nextThoughtNeeded: bool
    branches: list[str]
    thoughtHistoryLength: int


@dataclass
class Thought:
    thought: str
    thought_number: int
    total_thoughts: int
    next_thought_needed: bool
    is_revision: bool | None = None
    revises_thought: int | None = None
    branch_from_thought: int | None = None
    branch_id: str | None = None


@dataclass
class ThoughtLog:
    """The history and branches of one session's thinking."""

    history: list[Thought] = field(default_factory=list)
    branches: dict[str, list[Thought]] = field(default_factory=dict)

    def add(self, thought: Thought) -> ThoughtProgress:
        thought.total_thoughts = max(thought.total_thoughts, thought.thought_number)
        self.history.append(thought)
        if thought.branch_from_thought and thought.branch_id:
            self.branches.setdefault(thought.branch_id, []).append(thought)
        return ThoughtProgress(
            thoughtNumber=thought.thought_number,
            totalThoughts=thought.total_thoughts,
            nextThoughtNeeded=thought.next_thought_needed,
            branches=list(self.branches),
            thoughtHistoryLength=len(self.history),
        )


class SessionLogs:
    """One ThoughtLog per MCP session id (stdio has none: one log for the process); only
    the `keep` most recently used sessions are remembered."""

    def __init__(self, keep: int = 256) -> None:
        self._logs: OrderedDict[str | None, ThoughtLog] = OrderedDict()
        self._keep = keep

    def of(self, session_id: str | None) -> ThoughtLog:
        log = self._logs.pop(session_id, None) or ThoughtLog()
        self._logs[session_id] = log
        if len(self._logs) > self._keep:
            self._logs.popitem(last=False)
        return log


@dataclass
class Thinking:
    """One server run's setting (echo thoughts to stderr) and state (every session's
    thoughts). The tool is a coroutine: calls run one at a time on the event loop, never
    in two threads at once over the same logs."""

    echo: bool = False
    logs: SessionLogs = field(default_factory=SessionLogs)


ThoughtText = Annotated[str, Field(description="Your current thinking step")]
NextNeeded = Annotated[bool, Field(description="Whether another thought step is needed")]
ThoughtNumber = Annotated[int, Field(ge=1, description="Current thought number (1, 2, 3, ...)")]
TotalThoughts = Annotated[int, Field(ge=1, description="Estimated total thoughts needed")]
IsRevision = Annotated[bool | None, Field(description="Whether this revises previous thinking")]
RevisesThought = Annotated[int | None, Field(ge=1, description="Which thought is reconsidered")]
BranchFrom = Annotated[int | None, Field(ge=1, description="Branching point thought number")]
BranchId = Annotated[str | None, Field(description="Branch identifier")]
NeedsMore = Annotated[bool | None, Field(description="If more thoughts are needed")]


def thought_log(thinking: Thinking, ctx: Context) -> ThoughtLog:
    """The thoughts of this request's client. Over stdio a process serves one client: one
    log. Over HTTP, one log per MCP session (the Mcp-Session-Id header, which the SDK
    checks only for handshake-era requests); any other request (protocol 2026-07-28 has
    no session, whatever header it sends) stands alone: it shares no client's history."""
    headers = ctx.headers
    if headers is None:
        return thinking.logs.of(None)
    session = headers.get("mcp-session-id")
    if session and ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        return thinking.logs.of(session)
    return ThoughtLog()


async def sequentialthinking(
    thought: ThoughtText,
    nextThoughtNeeded: NextNeeded,
    thoughtNumber: ThoughtNumber,
    totalThoughts: TotalThoughts,
    ctx: Context,
    isRevision: IsRevision = None,
    revisesThought: RevisesThought = None,
    branchFromThought: BranchFrom = None,
    branchId: BranchId = None,
    needsMoreThoughts: NeedsMore = None,
) -> ThoughtProgress:
    thinking: Thinking = ctx.request_context.lifespan_context
    entry = Thought(
        thought,
        thoughtNumber,
        totalThoughts,
        nextThoughtNeeded,
        isRevision,
        revisesThought,
        branchFromThought,
        branchId,
    )
    progress = thought_log(thinking, ctx).add(entry)
    if thinking.echo:
        total = progress.totalThoughts
        print(f"Thought {thoughtNumber}/{total}: {thought}", file=sys.stderr, flush=True)
    return progress


TOOL = Tool.from_function(
    sequentialthinking,
    name="sequentialthinking",
    title="Sequential Thinking",
    description=DESCRIPTION,
)
