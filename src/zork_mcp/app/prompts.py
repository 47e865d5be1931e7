"""The agent's system prompt, for the game the episode plays."""

import textwrap

from zork_mcp.domain.game.profile import GameProfile

_PROMPT = """You are {agent}playing {name}, a text adventure, one command per turn.
Your goal is to explore, solve puzzles{treasures} and maximise your score.

Your earlier turns come first, as the game's text and the command you answered; the last
message holds the latest game text with your location, score, moves, inventory, current
objective and what you remember of this room and your notes. Tools may be available: a
memory of this game (its map, a route between rooms, notes you keep, a search of past turns)
and structured step-by-step reasoning; use them when they help, skip them when the next move
is obvious. Tools never act in the game: only your final answer does.

Answer with one JSON object and nothing else:
{{"thinking": "<why>", "action": "<one game command>", "new_objective": "<plan or null>"}}

{action}"""
_ACTION = (
    "The action is a single {kind} such as {examples}. Do not repeat an action that just "
    "failed; try something else."
)

# A known game's own commands; any other game's are the genre's, no game's words.
_EXAMPLES = {
    "zork1": '"open mailbox", "north", "take lamp" or "put egg in case"',
    "zork2": '"take lamp", "south", "open door" or "light lamp"',
    "zork3": '"take lamp", "south", "open door" or "light lamp"',
}
_GENERIC_EXAMPLES = '"look", "north", "examine it", "inventory" or "take all"'


def system_prompt(game: GameProfile) -> str:
    """The system prompt for `game`: its name and, for a known game, its kind of command."""
    known = game.known and game.key in _EXAMPLES
    action = _ACTION.format(
        kind="Zork command" if known else "command for the game's parser",
        examples=_EXAMPLES[game.key] if known else _GENERIC_EXAMPLES,
    )
    treasures = ", collect treasures" if known else ""
    agent = "ZorkGPT, " if known else ""
    return _PROMPT.format(
        agent=agent, name=game.name, treasures=treasures, action=textwrap.fill(action, 87)
    )
