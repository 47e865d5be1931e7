"""Prompt size per turn, and how much of it is a stable prefix a provider can cache.

Plays the first `--turns` walkthrough commands through the app (MCP on, a local OpenAI-protocol
peer that records each request body). For each LLM request it measures the prompt (tools and
messages, as sent) and the longest prefix shared with the previous turn's first request, in
the order providers cache (tools, then messages). Tokens are estimated as characters / 4: no
tokenizer's vocabulary can be downloaded here, and the peer's usage numbers are not real.

    python -m benchmarks.prompt_size [--turns 40] [--think-every 5]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import tempfile
from pathlib import Path

from benchmarks.full_game import TOOL, WALKTHROUGH, project
from benchmarks.support import print_table
from tests.support.llm_peers import OpenAIPeer
from zork_mcp.adapters.game.jericho import find_game_file
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.app.cli import main as app_main

THOUGHT = {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


def prompt_text(body: dict) -> str:
    """The prompt in cache order: tool definitions, then each message."""
    parts = [json.dumps(body.get("tools") or [], sort_keys=True)]
    parts += [json.dumps(message, sort_keys=True) for message in body["messages"]]
    return "".join(parts)


def shared_prefix(a: str, b: str) -> int:
    """Characters the two prompts share from the start."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def replies(turns: int, think_every: int) -> list:
    script = []
    for index, command in enumerate(WALKTHROUGH[:turns]):
        if think_every and index % think_every == 0:
            script.append(tool_calls_reply((TOOL, THOUGHT)))
        script.append(action_reply(command, thinking="the walkthrough says so"))
    return script


def record(turns: int, think_every: int) -> list[dict]:
    peer = OpenAIPeer(replies(turns, think_every), [TOOL], api_key=None)
    with tempfile.TemporaryDirectory() as directory, peer.serve() as url:
        code = app_main(
            [
                "--provider", "openrouter", "--base-url", f"{url}/v1", "--model", "prompt-size",
                "--game", str(find_game_file()), "--max-turns", str(turns), "--plain",
                "--config", str(project(Path(directory))), "--log-dir", directory,
                "--episode-id", "prompts",
            ]
        )  # fmt: skip
    if code != 0 or peer.rejections:
        raise SystemExit(f"the run failed: exit {code}, {peer.rejections}")
    return peer.requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--think-every", type=int, default=5, help="a tool call every N turns")
    arguments = parser.parse_args()
    os.environ.setdefault("OPENROUTER_API_KEY", "benchmark-not-a-key")
    requests = record(arguments.turns, arguments.think_every)
    sizes = [len(prompt_text(body)) for body in requests]
    first_of_turn = [b for b in requests if not any(m["role"] == "tool" for m in b["messages"])]
    texts = [prompt_text(b) for b in first_of_turn]
    stable = [shared_prefix(a, b) for a, b in itertools.pairwise(texts)]
    within = [
        shared_prefix(prompt_text(a), prompt_text(b))
        for a, b in itertools.pairwise(requests)
        if any(m["role"] == "tool" for m in b["messages"])
    ]
    tools = len(json.dumps(requests[0].get("tools") or [], sort_keys=True))
    system = len(json.dumps(requests[0]["messages"][0], sort_keys=True))
    rows = [
        ["LLM requests", str(len(requests)), ""],
        [
            "prompt chars, median (min-max)",
            f"{statistics.median(sizes):.0f}",
            f"{min(sizes)}-{max(sizes)}",
        ],
        [
            "  of which tool definitions",
            str(tools),
            f"{100 * tools / statistics.median(sizes):.0f}%",
        ],
        [
            "  of which system message",
            str(system),
            f"{100 * system / statistics.median(sizes):.0f}%",
        ],
        [
            "prefix shared turn to turn, median",
            f"{statistics.median(stable):.0f}",
            f"{100 * statistics.median(stable) / statistics.median(sizes):.0f}% of the prompt",
        ],
        [
            "prefix shared within a turn (after a tool call), median",
            f"{statistics.median(within):.0f}" if within else "-",
            "",
        ],
        ["≈ tokens per prompt (chars/4), median", f"{statistics.median(sizes) / 4:.0f}", ""],
        [
            "≈ cacheable tokens per turn (chars/4), median",
            f"{statistics.median(stable) / 4:.0f}",
            "",
        ],
    ]
    print(f"prompt size over {arguments.turns} turns (MCP on, OpenRouter wire format)")
    print_table(["measure", "value", "note"], rows)


if __name__ == "__main__":
    main()
