"""A text-adventure MCP server over Jericho (spec document 003).

Tools: `play_action(action)`, `memory()`, `get_map()`, `inventory()`. The game is the one
the GAME environment variable names: zork1, zork2 or zork3 (shipped in the package) or a story
file's path (else $ZORK_MCP_GAME, else zork1); GAME_MAX_SCORE gives an unknown game's most
points. Run: `GAME=zork2 python -m zork_mcp.servers.text_adventure` (add
`--transport http --port N` to serve Streamable HTTP on 127.0.0.1).
Actions are judged as the agent's own commands are (`domain.game_command`); `quit` and
`restart` reach the game only with GAME_ALLOW_QUIT_RESTART=1. Once `play_action` has said
GAME OVER (at the game's own end, or with GAME_END_AT_FIRST_DEATH=1 at the first death) it
refuses every command: a new game is a new server process. The game runs in a game process of
its own; tool calls reach it one at a time, in the order they arrive (the tools are coroutines
that never yield while they play), and it is closed when the server exits.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from zork_mcp import __version__
from zork_mcp.builders.game import GameSettings, find_story, game_env
from zork_mcp.domain.errors import GameHaltedError
from zork_mcp.domain.game.game import GameObservation
from zork_mcp.ports.game_env import GameEnv
from zork_mcp.servers.transport import parse_transport, serve

HISTORY_LIMIT = 50
GAME_OVER = (
    "GAME OVER: this game has ended and plays no more commands. A new game needs a new server "
    "process: restart the server (over stdio, connect again). memory and get_map still tell "
    "how this one went."
)
_WAYS = ("north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest")
_ABBREVIATED = ("n", "s", "e", "w", "ne", "nw", "se", "sw", "u", "d")
DIRECTIONS = {  # what a one-word movement says, to the way it goes
    **dict(zip(_ABBREVIATED, (*_WAYS, "up", "down"), strict=True)),
    **{way: way for way in (*_WAYS, "up", "down", "enter", "in", "exit", "out")},
}


def movement(action: str) -> str | None:
    """The direction a command moves in, or None: `n`, `go north` and `north` alike."""
    words = action.lower().split()
    if words[:1] == ["go"]:
        words = words[1:]
    return DIRECTIONS.get(words[0]) if len(words) == 1 else None


@dataclass
class GameSession:
    """One game, its recent history, and the map of exits seen so far."""

    env: GameEnv
    game: str  # the game's name, as its profile says it
    history: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=HISTORY_LIMIT))
    explored: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.current = self.env.reset()

    @property
    def over(self) -> bool:
        """The game has ended (play_action said GAME OVER): no command is played any more."""
        return self.current.game_over

    def close(self) -> None:
        close = getattr(self.env, "close", None)
        if close is not None:
            close()

    def take_action(self, action: str) -> str:
        if self.over:
            raise ToolError(GAME_OVER)
        command = validate_action(action)
        before = self.current
        try:
            self.current = self.env.step(command)
        except GameHaltedError as e:
            raise ToolError(f"{e} Restart the server for a new game.") from e
        self.history.append((command, self.current.text))
        self._update_map(command, before, self.current)
        return self._report(before, self.current)

    def _update_map(self, command: str, before: GameObservation, after: GameObservation) -> None:
        direction = movement(command)
        if direction and before.room and after.room and after.room != before.room:
            self.explored.setdefault(before.room, set()).add(f"{direction} -> {after.room}")

    def _report(self, before: GameObservation, after: GameObservation) -> str:
        parts = [after.text]
        if after.score != before.score:  # a death costs points: -10 in Zork I
            parts.append(f"{after.score - before.score:+d} points! (Total: {after.score})")
        parts.append(f"[Score: {after.score} | Moves: {after.moves}]")
        if after.game_over:
            parts.append("GAME OVER")
        return "\n\n".join(parts)

    def memory(self) -> str:
        recent = list(self.history)[-5:]
        lines = [
            "Current State:",
            f"- Location: {self.current.room or 'Unknown'}",
            f"- Score: {self.current.score} points",
            f"- Moves: {self.current.moves}",
            f"- Game: {self.game}",
            "",
            "Recent Actions:",
            *[f"  > {action} -> {_squash(result)[:60]}" for action, result in recent],
            "",
            "Current Observation:",
            self.current.text,
        ]
        return "\n".join(lines)

    def get_map(self) -> str:
        if not self.explored:
            return "No map yet: move around (north, south, east, west, up, down, ...) to build it."
        lines = ["Explored Locations and Exits:", ""]
        for room in sorted(self.explored):
            lines += [
                f"* {room}",
                *[f"    -> {exit_}" for exit_ in sorted(self.explored[room])],
                "",
            ]
        lines.append(f"[Current] {self.current.room or 'Unknown'}")
        return "\n".join(lines)

    def inventory(self) -> str:
        """What the game says to `inventory`, without spending a move."""
        text = self.env.peek("inventory").text
        return f"Inventory: {text}" if text else "You are empty-handed."


def validate_action(action: str) -> str:
    """A non-empty action of Unicode text; the game makes it safe and says what it changed."""
    if not action.strip():
        raise ToolError("action must be a game command, e.g. 'open mailbox' or 'north'")
    try:
        action.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ToolError(
            f"action holds a character that is not Unicode text at position {e.start} "
            "(a lone surrogate); send the command as plain text"
        ) from e
    return action


def _squash(text: str) -> str:
    return " ".join(text.split())


class LazyGame:
    """The game session, started on the first tool call and closed once at exit."""

    def __init__(self, factory: Callable[[], GameSession]) -> None:
        self._factory = factory
        self._session: GameSession | None = None

    def __call__(self) -> GameSession:
        if self._session is None:
            self._session = self._factory()
        return self._session

    def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.close()


def build_server(game: Callable[[], GameSession]) -> MCPServer:
    """The MCP server. Its tools are coroutines that never await: each call plays whole,
    in arrival order, and no two calls ever reach the game at once."""
    server = MCPServer("Text Adventure Server", version=__version__)

    @server.tool()
    async def play_action(action: str) -> str:
        """Execute a game command (e.g. 'north', 'take lamp', 'open mailbox')."""
        return game().take_action(action)

    @server.tool()
    async def memory() -> str:
        """Current location, score, moves, recent actions and the current observation."""
        return game().memory()

    @server.tool()
    async def get_map() -> str:
        """Explored locations and the exits found between them."""
        return game().get_map()

    @server.tool()
    async def inventory() -> str:
        """The items the player is carrying."""
        return game().inventory()

    return server


def main(argv: Sequence[str] | None = None) -> None:
    """Over HTTP one game is shared by every session: the game goes on across turns."""
    options = parse_transport(argv, "python -m zork_mcp.servers.text_adventure")
    max_score = os.environ.get("GAME_MAX_SCORE", "")
    settings = GameSettings(
        find_story(os.environ.get("GAME"), max_score=int(max_score) if max_score else None),
        seed=int(os.environ.get("GAME_SEED", "12")),
        allow_quit_restart=os.environ.get("GAME_ALLOW_QUIT_RESTART", "") == "1",
        end_at_first_death=os.environ.get("GAME_END_AT_FIRST_DEATH", "") == "1",
    )
    game = LazyGame(lambda: GameSession(game_env(settings), settings.profile.name))
    try:  # on SIGTERM or SIGKILL the game process sees its pipe close and ends by itself
        serve(build_server(game), options)
    finally:
        game.close()


if __name__ == "__main__":
    main()
