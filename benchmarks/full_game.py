"""The 396-command Zork I walkthrough through the whole stack: wall time and score.

`main()` of the app, the real OpenAI-compatible adapter against a local HTTP server speaking
the OpenAI protocol (it answers each turn with the next walkthrough command, instantly),
our reasoning MCP server (a fresh process every turn) and real Jericho on zork1.z3.

Modes: `on-spawn` and `on-fork` (how each turn's server process starts), `off`. With
`--rounds N` the modes take turns N times and each row is one round (the wall-time medians
follow), so a before/after comparison can alternate two trees in one job.

    python -m benchmarks.full_game [--modes on-spawn,on-fork,off] [--rounds 1]
        [--max-turns 400] [--game ../shared/games/zork1.z3] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from jericho.game_info import zork1

from benchmarks.support import parse_arguments, print_table
from tests.support.llm_peers import OpenAIPeer
from zork_mcp.adapters.game.jericho import find_game_file
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main as app_main

WALKTHROUGH = zork1["walkthrough"].split("/")
TOOL = "reasoning.sequentialthinking"


def project(directory: Path, server_start: str) -> Path:
    (directory / "mcp_config.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "reasoning": {
                        "command": "python",
                        "args": ["-m", "zork_mcp.servers.reasoning"],
                        "env": {"DISABLE_THOUGHT_LOGGING": "true"},
                    }
                }
            }
        )
    )
    pyproject = directory / "pyproject.toml"
    pyproject.write_text(f'[tool.zorkgpt.mcp]\nenabled = true\nserver_start = "{server_start}"\n')
    return pyproject


def play(mode: str, game: Path, directory: Path, max_turns: int = 400) -> list[str]:
    mcp = mode != "off"
    server_start = mode.removeprefix("on-") if mode.startswith("on-") else "auto"
    peer = OpenAIPeer([action_reply(c) for c in WALKTHROUGH], [TOOL], api_key=None)
    with peer.serve() as url:
        started = time.perf_counter()
        code = app_main(
            [
                "--provider", "local", "--base-url", f"{url}/v1", "--model", "walkthrough",
                "--game", str(game), "--max-turns", str(max_turns), "--plain",
                "--config", str(project(directory, server_start)), "--log-dir", str(directory),
                "--episode-id", "bench", "--mcp" if mcp else "--no-mcp",
            ]
        )  # fmt: skip
        wall = time.perf_counter() - started
    events = [json.loads(line) for line in (directory / "bench" / "events.jsonl").open()]
    (end,) = [e for e in events if e["event_type"] == "episode_end"]
    turns = end["turns"]
    return [
        mode,
        str(code),
        str(turns),
        f"{wall:.1f}",
        f"{1000 * wall / turns:.1f}",
        f"{end['score']}/350",
        str(end["moves"]),
        end["end_reason"],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="on-spawn,on-fork,off", help="comma-separated")
    parser.add_argument("--game", default=None, help="the zork1.z3 story file")
    parser.add_argument("--rounds", type=int, default=1, help="times each mode is played")
    parser.add_argument("--max-turns", type=int, default=400, help="the episode's turn limit")
    # a quick run: one turn with MCP off and on, forked (the app's start where it can fork);
    # spawned, every turn is a fresh interpreter importing mcp (~1 s CPU)
    arguments = parse_arguments(parser, {"max_turns": 1, "modes": "on-fork,off"})
    game = find_game_file(arguments.game)
    modes = [mode.strip() for mode in arguments.modes.split(",")]
    rows = []
    for _ in range(arguments.rounds):
        for mode in modes:
            with tempfile.TemporaryDirectory() as directory:
                rows.append(play(mode, game, Path(directory), arguments.max_turns))
    print(
        f"the {len(WALKTHROUGH)}-command walkthrough through the whole stack (instant LLM), "
        f"at most {arguments.max_turns} turns"
    )
    headers = ["MCP", "exit", "turns", "wall s", "ms/turn", "score", "moves", "end"]
    print_table(headers, rows)
    if arguments.rounds > 1:
        for mode in modes:
            walls = [float(row[3]) for row in rows if row[0] == mode]
            print(f"{mode}: median wall {statistics.median(walls):.2f} s over {len(walls)} rounds")


if __name__ == "__main__":
    main()
