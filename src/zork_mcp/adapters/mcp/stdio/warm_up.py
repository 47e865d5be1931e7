"""What the fork server runs once after its imports, so its children need not.

Registering a tool makes pydantic import and cache what a server's first tool needs
(~4 ms of CPU per server process); the throwaway server is never run. A tool whose
arguments the SDK resolves (`Resolve`, as the memory server's do) wraps each value in
`AcceptedElicitation[Any]`, a generic model that pydantic makes, and completes, on first
use (~3 ms); pydantic keeps such models weakly, so this module keeps it. A small map drawn
as the memory server draws one (its kept survey imported, drawn, rendered, routed) lets the
interpreter specialise that code here, not in every child (~0.5 ms of a forked get_map).
The bundled servers' modules are run once (their top level, not their main): a child that
runs one then finds the import system's caches for their package filled, and writes
~1.1 MB fewer of the pages it shares with this process (a spare 7.5 -> 6.4 MB of its own).
"""

import runpy
from typing import Annotated, Any

from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from zork_mcp.domain.episode.episode_map import MapSurvey
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.game.trilogy import ZORK1

RESOLVED = AcceptedElicitation[Any]
BUNDLED = ("zork_mcp.servers.reasoning", "zork_mcp.servers.memory")


class Answer(BaseModel):
    items: list[str]


def probe(count: Annotated[int, Field(ge=1, description="n")], note: str | None = None) -> Answer:
    return Answer(items=[note or ""] * count)


HALL, ATTIC = Place("Hall", 1), Place("Attic", 2)
WALK = (
    PlayedTurn(1, "up", "Attic", ATTIC),
    PlayedTurn(2, "north", "You can't go that way.", ATTIC),
    PlayedTurn(3, "down", "Hall", HALL),
    PlayedTurn(4, "g", "You can't go that way.", HALL),
)


def warm_up() -> None:
    MCPServer("warm-up").tool(description="warm-up")(probe)
    RESOLVED(data=None)
    _draw_a_map()
    for server in BUNDLED:  # their top level only: no main, nothing served
        runpy.run_module(server, run_name="warm-up")


def _draw_a_map() -> None:
    survey = MapSurvey.of(HALL, WALK[:2], ZORK1)
    survey = MapSurvey.imported(survey.exported(), ZORK1) or MapSurvey(HALL, ZORK1)
    for turn in WALK[2:]:
        survey.record(turn)
    drawn = survey.drawn()
    drawn.render()
    drawn.find_path("Hall", "Attic").text()
