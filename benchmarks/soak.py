"""Soak: 1,000 agent turns with MCP on and faults injected at random; resources must stay flat.

The real agent, the real stdio adapter with the background spare, and the fault server
(tests/support/fault_server.py, a fresh process every turn, some starts failing). Each turn
the scripted LLM picks a fault: a good call, a failing tool, a hanging tool (timeout), the
server dying mid-call, bad JSON, an unknown tool, a 1 MB result, an empty reply, a non-JSON
answer, or none. Reports descendant processes, open file descriptors and memory (ours and
the fork server's) at checkpoints.

    python -m benchmarks.soak [--turns 1000] [--seed 7] [--server-start fork|spawn] [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from contextlib import asynccontextmanager
from pathlib import Path

from benchmarks.support import parse_arguments, print_table
from tests.support.processes import live_descendants, processes_in_groups
from zork_mcp.adapters.llm.fake import FunctionLLM, action_reply, text_reply, tool_calls_reply
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.adapters.telemetry.jsonl import JsonlTelemetry
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    FinishReason,
    LLMRequest,
    LLMResponse,
    ToolResultMessage,
)
from zork_mcp.domain.servers.confinement import Sandbox
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.settings import MCPSettings

FAULT_SERVER = Path(__file__).resolve().parents[1] / "tests" / "support" / "fault_server.py"
FAULTS = {
    "none": None,
    "good_call": ("faults.echo", {"text": "hello"}),
    "failing_tool": ("faults.fail", {}),
    "hanging_tool": ("faults.slow", {"seconds": 60}),
    "server_dies": ("faults.crash", {}),
    "bad_json": ("faults.echo", '{"text": '),
    "unknown_tool": ("faults.nope", {}),
    "one_mb_result": ("faults.big", {"megabytes": 1}),
    "empty_reply": "empty",
    "not_json": "prose",
}

ANSWERED = (ToolResultMessage, AssistantText, AssistantToolCalls)  # not a turn's first request


def descendants() -> int:
    """Live (non-zombie) processes below this one: servers, spares, the fork server."""
    return len(live_descendants(os.getpid()))


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_mb(pid: int | str = "self") -> float:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    for line in lines:
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fork_server_rss(server: McpStdioToolServer) -> str:
    pids = server.fork_server_pids
    return f"{rss_mb(pids[-1]):.1f}" if pids else "-"


class FaultyLLM:
    """Each turn, one random fault; always a valid answer when asked without tools."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.plan, self.counts = rng, "none", Counter()
        self.llm = FunctionLLM(self.respond, model="openai/gpt-4o-mini")

    def new_turn(self) -> None:
        self.llm.requests.clear()  # the fake keeps every request for tests: not ours to measure
        self.plan = self.rng.choice(list(FAULTS))
        self.counts[self.plan] += 1

    def respond(self, request: LLMRequest) -> LLMResponse:
        first = not any(isinstance(m, ANSWERED) for m in request.messages)
        fault = FAULTS[self.plan]
        if not request.tools or not first or fault is None:
            return action_reply(self.rng.choice(["north", "south", "look", "take lamp"]))
        if fault == "empty":
            return LLMResponse(None, finish_reason=FinishReason.LENGTH)
        if fault == "prose":
            return text_reply("I think going north is best.")
        return tool_calls_reply(fault)


def failing_starts(turns: int, rng: random.Random) -> str:
    """About 2% of server starts fail, never two within three starts, so a retry always
    works: a connect that takes a failing spare has started the next spare (start + 1,
    retired when the connect fails), and its retry starts its own (start + 2)."""
    chosen: set[int] = set()
    for start in range(3, 2 * turns):
        if rng.random() < 0.02 and not chosen & {start - 1, start - 2}:
            chosen.add(start)
    return ",".join(map(str, sorted(chosen)))


def checkpoint(turn: int, server: McpStdioToolServer, started: float) -> list[str]:
    return [
        str(turn),
        str(descendants()),
        str(server.live_processes),
        str(open_fds()),
        f"{rss_mb():.1f}",
        fork_server_rss(server),
        f"{time.monotonic() - started:.0f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--every", type=int, default=100, help="turns between checkpoints")
    parser.add_argument("--server-start", default="fork", choices=["fork", "spawn"])
    # seed 5: a server start fails within 20 turns, so a short run retries one too
    arguments = parse_arguments(parser, {"turns": 20, "every": 10, "seed": 5})
    rng = random.Random(arguments.seed)
    faulty = FaultyLLM(rng)

    @asynccontextmanager
    async def llm_session():
        yield faulty.llm

    with tempfile.TemporaryDirectory() as directory:
        env = {
            "FAULT_STARTS": str(Path(directory) / "starts"),
            "FAULT_FAILING_STARTS": failing_starts(arguments.turns, rng),
        }
        config = MCPServerConfig(  # confined as every server is; `flaky` counts starts here
            command=sys.executable,
            args=(str(FAULT_SERVER), "flaky"),
            env=env,
            sandbox=Sandbox(write=(directory,)),
        )
        server = stdio_tool_server(
            {"faults": config},
            stderr_path=Path(directory) / "stderr.log",
            background_spare=True,
            server_start=arguments.server_start,
        )
        telemetry = JsonlTelemetry(Path(directory) / "logs", "soak")
        settings = MCPSettings(enabled=True, tool_call_timeout_seconds=0.5, max_tool_iterations=3)
        agent = ZorkAgent(
            llm_session=llm_session,
            settings=settings,
            telemetry=telemetry,
            system_prompt="You play Zork.",
            tool_server=server,
        )
        server.warm_up()
        started, rows, actions = time.monotonic(), [], Counter()
        for turn in range(1, arguments.turns + 1):
            faulty.new_turn()
            action = agent.get_action_with_reasoning("West of House")["action"]
            assert action and "\n" not in action, f"turn {turn}: {action!r}"
            actions[action] += 1
            if turn == 1 or turn % arguments.every == 0:
                rows.append(checkpoint(turn, server, started))
        server.close()
        telemetry.close()
        leftovers = processes_in_groups(server.spawned_pids)
        starts = len((Path(directory) / "starts").read_text().splitlines())
        rows.append(["closed", *checkpoint(0, server, started)[1:]])
    print(
        f"soak: {arguments.turns} turns, MCP on, random faults (seed {arguments.seed}), "
        f"server processes by {arguments.server_start}"
    )
    headers = ["turn", "descendants", "live servers", "open fds", "RSS MB", "fork server RSS MB"]
    print_table([*headers, "elapsed s"], rows)
    print(f"faults injected: {dict(sorted(faulty.counts.items()))}")
    planned = len([n for n in env["FAULT_FAILING_STARTS"].split(",") if n])
    print(f"server starts: {starts} (failing by design: {planned})")
    print(
        f"MCP disabled at the end: {agent.connection.is_disabled}; leftover processes: {leftovers}"
    )
    first, last = rows[0], rows[-2]
    print(
        f"fds first->last turn: {first[3]} -> {last[3]}; RSS: {first[4]} -> {last[4]} MB; "
        f"fork server RSS: {first[5]} -> {last[5]} MB"
    )


if __name__ == "__main__":
    main()
