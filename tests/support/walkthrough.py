"""The walkthrough game the end-to-end tests play, and its project folder."""

from __future__ import annotations

from pathlib import Path

from jericho.game_info import zork1

from tests.support.projects import write_project
from zork_mcp.adapters.game.jericho import packaged_story

WALKTHROUGH = zork1["walkthrough"].split("/")


def walkthrough(key: str) -> list[str]:
    """A game's walkthrough: Jericho's for Zork I, the package's own for Zork II and III (one
    command a line, `#` comments), each reaching the game's maximum with seed 12."""
    if key == "zork1":
        return list(WALKTHROUGH)
    text = packaged_story(key).with_name(f"{key}-walkthrough.txt").read_text()
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


TOOL = "reasoning.sequentialthinking"


def project(tmp_path: Path, marker: str, **mcp: float) -> Path:
    reasoning = {
        "command": "python",
        "args": ["-m", "zork_mcp.servers.reasoning"],
        "env": {"DISABLE_THOUGHT_LOGGING": "true", "E2E_MARKER": marker},
    }
    servers = {"reasoning": reasoning}
    return write_project(tmp_path, servers, enabled=True, tool_call_timeout_seconds=20, **mcp)


def thought(n: int) -> dict:
    return {
        "thought": f"step {n}",
        "thoughtNumber": n,
        "totalThoughts": 2,
        "nextThoughtNeeded": n < 2,
    }


# The walkthrough's way to the lamp, then down the trap door without lighting it: the grue.
TO_THE_GRUE = [*zork1["walkthrough"].split("/")[:13], "move rug", "open trap door", "down", "n"]
