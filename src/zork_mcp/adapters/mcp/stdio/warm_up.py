"""What the fork server runs once after its imports, so its children need not.

Registering a tool makes pydantic import and cache what a server's first tool needs
(~4 ms of CPU per server process); the throwaway server is never run. A tool whose
arguments the SDK resolves (`Resolve`, as the memory server's do) wraps each value in
`AcceptedElicitation[Any]`, a generic model that pydantic makes, and completes, on first
use (~3 ms); pydantic keeps such models weakly, so this module keeps it.
"""

from typing import Annotated, Any

from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

RESOLVED = AcceptedElicitation[Any]


class Answer(BaseModel):
    items: list[str]


def probe(count: Annotated[int, Field(ge=1, description="n")], note: str | None = None) -> Answer:
    return Answer(items=[note or ""] * count)


def warm_up() -> None:
    MCPServer("warm-up").tool(description="warm-up")(probe)
    RESOLVED(data=None)
