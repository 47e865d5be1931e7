"""A structured-reasoning MCP server, compatible with the `sequentialthinking` tool.

It accepts the same arguments as `@modelcontextprotocol/server-sequential-thinking` and
answers with the same structured progress. Thought history lives as long as the MCP
session: with a fresh server per turn it resets every turn, as the npm server's does, and
one long-lived HTTP server keeps each session's thoughts apart.
Run: `python -m zork_mcp.servers.reasoning [--transport http --port N]`.
"""

import os
import sys
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from zork_mcp.servers.transport import parse_transport, serve

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
    """The history and branches of one process's thinking."""

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


ThoughtText = Annotated[str, Field(description="Your current thinking step")]
NextNeeded = Annotated[bool, Field(description="Whether another thought step is needed")]
ThoughtNumber = Annotated[int, Field(ge=1, description="Current thought number (1, 2, 3, ...)")]
TotalThoughts = Annotated[int, Field(ge=1, description="Estimated total thoughts needed")]
IsRevision = Annotated[bool | None, Field(description="Whether this revises previous thinking")]
RevisesThought = Annotated[int | None, Field(ge=1, description="Which thought is reconsidered")]
BranchFrom = Annotated[int | None, Field(ge=1, description="Branching point thought number")]
BranchId = Annotated[str | None, Field(description="Branch identifier")]
NeedsMore = Annotated[bool | None, Field(description="If more thoughts are needed")]


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


def session_id(ctx: Context | None) -> str | None:
    """The Streamable HTTP session's id (the Mcp-Session-Id header); None over stdio."""
    request = ctx.request_context.request if ctx is not None else None
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


def build_server(log: ThoughtLog | None = None, *, echo_thoughts: bool = False) -> MCPServer:
    """`log` shares one history among every session (tests); by default each has its own."""
    logs = SessionLogs()
    server = MCPServer("zork-mcp-reasoning")

    @server.tool(name="sequentialthinking", title="Sequential Thinking", description=DESCRIPTION)
    def sequentialthinking(
        thought: ThoughtText,
        nextThoughtNeeded: NextNeeded,
        thoughtNumber: ThoughtNumber,
        totalThoughts: TotalThoughts,
        isRevision: IsRevision = None,
        revisesThought: RevisesThought = None,
        branchFromThought: BranchFrom = None,
        branchId: BranchId = None,
        needsMoreThoughts: NeedsMore = None,
        ctx: Context | None = None,
    ) -> ThoughtProgress:
        entry = Thought(
            thought, thoughtNumber, totalThoughts, nextThoughtNeeded,
            isRevision, revisesThought, branchFromThought, branchId,
        )  # fmt: skip
        thoughts = log or logs.of(session_id(ctx))
        progress = thoughts.add(entry)
        if echo_thoughts:
            total = progress.totalThoughts
            print(f"Thought {thoughtNumber}/{total}: {thought}", file=sys.stderr, flush=True)
        return progress

    return server


def main(argv: Sequence[str] | None = None) -> None:
    options = parse_transport(argv, "python -m zork_mcp.servers.reasoning")
    echo = os.environ.get("DISABLE_THOUGHT_LOGGING", "").lower() != "true"
    serve(build_server(echo_thoughts=echo), options)


if __name__ == "__main__":
    main()
