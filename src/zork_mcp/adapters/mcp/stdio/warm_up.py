"""What the fork server runs once after its imports, so its children need not.

Registering a tool makes pydantic import and cache what a server's first tool needs
(~4 ms of CPU per server process); the throwaway server is never run.
"""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field


class Answer(BaseModel):
    items: list[str]


def probe(count: Annotated[int, Field(ge=1, description="n")], note: str | None = None) -> Answer:
    return Answer(items=[note or ""] * count)


def warm_up() -> None:
    MCPServer("warm-up").tool(description="warm-up")(probe)
