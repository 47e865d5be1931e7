"""Per-turn critical-path overhead of the agent machinery, with a zero-latency scripted LLM.

One turn is one `ZorkAgent.get_action_with_reasoning` (one asyncio.run): open the tool
session, ask the LLM (instant), run its tool call on the real server, ask again, parse the
answer, close the session. Modes: MCP off; MCP on with a fresh server process per turn,
with and without the background spare, each spawned and forked (fork server, issue 14).
`--gap` adds idle seconds between turns (the game step and the LLM's real latency happen
there in a real run), which is when the spare can start the next turn's server off the
critical path. `--llm-latency` makes each LLM answer take that long, as a real model's
does (the spare then gets ready while the model thinks); the time spent waiting for it is
left out of the numbers, which stay the machinery's overhead. `--servers 1,3` also
measures several reasoning servers configured together (issue 26), each called once a turn
in one batch, forked, with and without the spare. Every MCP-on mode is measured in both MCP
eras: the handshake (pinned to 2025-11-25) and the stateless era the client speaks by
default (2026-07-28: one `server/discover` an episode, then each fresh server is sent
`tools/list` at once).

    python -m benchmarks.turn_overhead [--turns 30] [--gap 0] [--llm-latency 0]
        [--tool-calls 1] [--servers 1,3] [--settle 1.0] [--starts spawn,fork]
        [--eras handshake,stateless] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path

from benchmarks.support import listed, parse_arguments, print_table, timing_row
from zork_mcp.adapters.llm.fake import FunctionLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.adapters.telemetry.jsonl import JsonlTelemetry
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.app.prompts import system_prompt
from zork_mcp.domain.game.trilogy import ZORK1
from zork_mcp.domain.llm.messages import LLMRequest, ToolResultMessage
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.settings import MCPSettings

SERVER = MCPServerConfig(
    command="python",
    args=("-m", "zork_mcp.servers.reasoning"),
    env={"DISABLE_THOUGHT_LOGGING": "true"},
)
THOUGHT = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
ERAS = {"handshake": "2025-11-25", "stateless": None}
STATE = "West of House\nYou are standing in an open field west of a white house."


class ScriptedLLM(FunctionLLM):
    """Calls every server's reasoning tool in one batch, `tool_calls` batches a turn, then
    answers; each answer takes `latency` seconds, summed in `waited`."""

    def __init__(self, tool_calls: int, servers: list[str], latency: float) -> None:
        batch = [(f"{server}.sequentialthinking", THOUGHT) for server in servers]
        self.waited = 0.0

        async def respond(request: LLMRequest):
            if latency:
                started = time.perf_counter()
                await asyncio.sleep(latency)
                self.waited += time.perf_counter() - started
            asked = sum(isinstance(m, ToolResultMessage) for m in request.messages)
            if request.tools and asked < tool_calls * len(batch):
                return tool_calls_reply(*batch)
            return action_reply("north")

        super().__init__(respond, model="openai/gpt-4o-mini")


def server_names(count: int) -> list[str]:
    return ["reasoning", *(f"reasoning{n}" for n in range(2, count + 1))]


def measure(
    mode: str,
    turns: int,
    gap: float,
    tool_calls: int,
    logs: Path,
    servers: int = 1,
    llm_latency: float = 0.0,
    protocol: str | None = None,
    settle: float = 1.0,
) -> list[float]:
    names = server_names(servers)
    llm = ScriptedLLM(tool_calls, names, llm_latency)

    @asynccontextmanager
    async def llm_session():
        yield llm

    server = None
    if mode != "off":
        spare, start = mode.split(", ")[1:]
        config = SERVER.model_copy(update={"protocol": protocol})
        server = stdio_tool_server(
            dict.fromkeys(names, config),
            background_spare=spare == "spare",
            stderr_path=logs / "stderr.log",
            server_start=start,
        )
        server.fork_server_ready(60)
        server.warm_up()
        time.sleep(settle)  # the app warms up while it loads the game
    telemetry = JsonlTelemetry(logs / mode.replace(", ", "-"), "bench")
    agent = ZorkAgent(
        llm_session=llm_session,
        settings=MCPSettings(enabled=server is not None),
        telemetry=telemetry,
        system_prompt=system_prompt(ZORK1),
        tool_server=server,
    )
    seconds = []
    try:
        for _ in range(turns):
            started, waited = time.perf_counter(), llm.waited
            agent.get_action_with_reasoning(STATE)
            seconds.append(time.perf_counter() - started - (llm.waited - waited))
            time.sleep(gap)
    finally:
        telemetry.close()
        if server is not None:
            server.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--gap", type=float, default=0.0, help="idle seconds between turns")
    parser.add_argument(
        "--llm-latency", type=float, default=0.0, help="seconds each LLM answer takes"
    )
    parser.add_argument("--tool-calls", type=int, default=1, help="tool calls per turn")
    parser.add_argument("--servers", default="", help="e.g. 1,3: several servers, forked")
    parser.add_argument(
        "--settle", type=float, default=1.0, help="idle seconds after the servers warm up"
    )
    parser.add_argument("--starts", default="spawn,fork", help="MCP on's server starts")
    parser.add_argument("--eras", default=",".join(ERAS), help="MCP on's eras")
    # a quick run measures each spare choice once, forked, in the default (stateless) era:
    # every mode starts servers of its own, ~1 s of CPU each
    quick = {"turns": 1, "settle": 0.1, "starts": "fork", "eras": "stateless"}
    arguments = parse_arguments(parser, quick)
    starts = listed(parser, "--starts", arguments.starts, ["spawn", "fork"])
    eras = {era: ERAS[era] for era in listed(parser, "--eras", arguments.eras, list(ERAS))}
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        modes = [f"on, {s}, {start}" for s in ("spare", "no spare") for start in starts]
        if arguments.servers:
            modes = []
        seconds = measure(
            "off", arguments.turns, arguments.gap, arguments.tool_calls, Path(directory),
            llm_latency=arguments.llm_latency, settle=arguments.settle,
        )  # fmt: skip
        rows.append(timing_row("MCP off", seconds))
        for mode in modes:
            for era, pin in eras.items():
                seconds = measure(
                    mode, arguments.turns, arguments.gap, arguments.tool_calls, Path(directory),
                    llm_latency=arguments.llm_latency, protocol=pin, settle=arguments.settle,
                )  # fmt: skip
                rows.append(timing_row(f"MCP {mode}, {era}", seconds))
        for count in (int(n) for n in arguments.servers.split(",") if n):
            for spare in ("spare", "no spare"):
                mode = f"on, {spare}, fork"
                for era, pin in eras.items():
                    seconds = measure(
                        mode, arguments.turns, arguments.gap, arguments.tool_calls,
                        Path(directory), count, arguments.llm_latency, pin, arguments.settle,
                    )  # fmt: skip
                    rows.append(timing_row(f"MCP {mode}, {count} server(s), {era}", seconds))
    llm = (
        f"{arguments.llm_latency:g} s LLM (not counted)"
        if arguments.llm_latency
        else ("zero-latency LLM")
    )
    print(
        f"per-turn critical path, {llm}, {arguments.tool_calls} tool call(s) a turn, "
        f"{arguments.gap:g} s between turns"
    )
    print_table(["mode", "turns", "median ms", "p95 ms", "max ms"], rows)


if __name__ == "__main__":
    main()
