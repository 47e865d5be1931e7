"""Per-turn cost of tracing: off, Langfuse, plain OTLP, both (issue 18).

One turn is one `ZorkAgent.get_action_with_reasoning` with a zero-latency LLM that calls an
in-process fake tool `--tool-calls` times, so the numbers are the machinery alone. The
telemetry is the app's own (`zork_mcp.builders.telemetry`): the JSONL logs, plus the backends
the environment turns on, exporting OTLP/HTTP to a loopback server that accepts and discards.

    python -m benchmarks.tracing_overhead [--turns 200] [--tool-calls 2] [--quick]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from benchmarks.support import parse_arguments, print_table, timing_row
from zork_mcp.adapters.llm.fake import FunctionLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.builders.settings import RunOptions
from zork_mcp.builders.telemetry import episode_telemetry
from zork_mcp.builders.telemetry import telemetry as telemetry_of
from zork_mcp.domain.llm.messages import LLMRequest, ToolResultMessage
from zork_mcp.domain.settings import MCPSettings

TRACING_VARIABLES = (
    "LANGFUSE_PUBLIC_KEY",
    "LANGFUSE_SECRET_KEY",
    "LANGFUSE_BASE_URL",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
)


@contextmanager
def discarding_endpoint() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def environment(mode: str, url: str) -> dict[str, str]:
    env: dict[str, str] = {}
    if mode in ("Langfuse", "both"):
        env |= {
            "LANGFUSE_PUBLIC_KEY": f"pk-lf-{uuid.uuid4().hex}",
            "LANGFUSE_SECRET_KEY": "sk-lf-bench",
            "LANGFUSE_BASE_URL": url,
        }
    if mode in ("OTLP", "both"):
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = url
    return env


def zero_latency_llm(tool_calls: int) -> FunctionLLM:
    def respond(request: LLMRequest):
        asked = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        if request.tools and asked < tool_calls:
            return tool_calls_reply(("box.think", {"thought": "t"}))
        return action_reply("north")

    return FunctionLLM(respond, model="openai/gpt-4o-mini")


def measure(mode: str, turns: int, tool_calls: int, url: str, logs: Path) -> list[float]:
    for name in TRACING_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(environment(mode, url))
    llm = zero_latency_llm(tool_calls)

    @asynccontextmanager
    async def session():
        yield llm

    options = RunOptions(log_dir=logs, episode_id=mode)
    settings = MCPSettings(enabled=True)
    seconds = []
    with telemetry_of(episode_telemetry(options, settings)) as telemetry:
        agent = ZorkAgent(
            llm_session=session,
            settings=settings,
            telemetry=telemetry,
            system_prompt="sys",
            tool_server=FakeToolServer("box", {"think": lambda thought: thought}),
        )
        for _ in range(turns):
            started = time.perf_counter()
            agent.get_action_with_reasoning("West of House")
            seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--tool-calls", type=int, default=2, help="tool calls per turn")
    arguments = parse_arguments(parser, {"turns": 5})
    rows = []
    with tempfile.TemporaryDirectory() as directory, discarding_endpoint() as url:
        for mode in ("off", "OTLP", "Langfuse", "both"):
            seconds = measure(mode, arguments.turns, arguments.tool_calls, url, Path(directory))
            rows.append(timing_row(f"tracing {mode}", seconds))
    print(
        f"per-turn time, zero-latency LLM, {arguments.tool_calls} in-process tool call(s) "
        f"a turn ({arguments.tool_calls + 1} LLM calls), JSONL logs always on"
    )
    print_table(["mode", "turns", "median ms", "p95 ms", "max ms"], rows)


if __name__ == "__main__":
    main()
