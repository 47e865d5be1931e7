"""mcp_ghost() with the two bundled Python servers: time from the call to the first LLM
request (both servers started and handshaken), for the first call and later calls of one
process, with spawned and with forked server processes side by side.

The provider is an in-process OpenAI-compatible peer (httpx.MockTransport) that answers at
once, so the time measured is the servers'. Spawn runs first, so fork's first call pays
for starting the shared fork server.

    python -m benchmarks.ghost_start [--calls 5] [--game ../shared/games/zork1.z3] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import httpx

from benchmarks.support import parse_arguments, print_table
from zork_mcp.adapters.game.jericho import find_game_file
from zork_mcp.ghost import mcp_ghost

ANSWER = {
    "id": "bench",
    "object": "chat.completion",
    "model": "gpt-4o-mini",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def servers(game: str) -> dict:
    return {
        "mcpServers": {
            "reasoning": {"command": "python", "args": ["-m", "zork_mcp.servers.reasoning"]},
            "adventure": {
                "command": "python",
                "args": ["-m", "zork_mcp.servers.text_adventure"],
                "env": {"GAME": game},
            },
        }
    }


async def one_call(config: dict, start: str) -> float:
    first_request: list[float] = []

    def answer(request: httpx.Request) -> httpx.Response:
        first_request.append(time.perf_counter())
        return httpx.Response(200, content=json.dumps(ANSWER).encode())

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        started = time.perf_counter()
        result = await mcp_ghost(
            config, "Use the tools.", "openai", "sk-bench", "Say done.",
            http_client=client, server_start=start, startup_timeout=60,
        )  # fmt: skip
    if not result.success:
        raise SystemExit(f"mcp_ghost failed: {result.errors}")
    return first_request[0] - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5, help="a first call and later ones")
    parser.add_argument("--game", default=None)
    # a quick run: the first call alone (a spawned call starts two interpreters, ~2 s CPU)
    arguments = parse_arguments(parser, {"calls": 1})
    config = servers(str(find_game_file(arguments.game)))
    rows = []
    for start in ("spawn", "auto"):
        seconds = [asyncio.run(one_call(config, start)) for _ in range(arguments.calls)]
        later = sorted(seconds[1:])
        rows.append(
            [
                "fork" if start == "auto" else start,
                f"{1000 * seconds[0]:.0f}",
                f"{1000 * later[len(later) // 2]:.0f}" if later else "-",
                f"{1000 * max(later):.0f}" if later else "-",
            ]
        )
    print("mcp_ghost, 2 bundled Python servers, ms from call to first LLM request")
    print_table(["start", "first call", "later calls median", "later calls max"], rows)


if __name__ == "__main__":
    main()
