"""An MCP stdio server that misbehaves on request, for fault tests of the real adapter.

python fault_server.py [serve|exit-at-start|hang-at-start|junk-then-serve|junk-only|flaky]

`flaky` counts its starts in the file $FAULT_STARTS and exits at once on the start numbers
listed in $FAULT_FAILING_STARTS (e.g. "2,4,5"), serving on the others.
"""

import asyncio
import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("faults")


@server.tool()
def echo(text: str) -> str:
    """Answer with the text."""
    return f"echo: {text}"


@server.tool()
def fail() -> str:
    """Always report an error."""
    raise ToolError("this tool always fails")


@server.tool()
async def slow(seconds: float = 30) -> str:
    """Answer after a long time."""
    await asyncio.sleep(seconds)
    return "finally"


@server.tool()
def crash() -> str:
    """Kill the server process mid-call."""
    os._exit(3)


@server.tool()
def big(megabytes: int = 10) -> str:
    """A very large result."""
    return "x" * (megabytes * 1024 * 1024)


def flaky_start_fails() -> bool:
    with open(os.environ["FAULT_STARTS"], "a+", encoding="utf-8") as starts:
        starts.write("start\n")
        starts.seek(0)
        number = len(starts.read().splitlines())
    failing = {int(n) for n in os.environ.get("FAULT_FAILING_STARTS", "").split(",") if n}
    return number in failing


def main(mode: str) -> None:
    if mode == "flaky" and flaky_start_fails():
        sys.exit(3)
    if mode == "exit-at-start":
        sys.exit(2)
    if mode == "hang-at-start":
        time.sleep(600)
    if mode.startswith("junk"):
        print("Welcome to the fault server!", flush=True)
        print("{not json either", flush=True)
        if mode == "junk-only":
            time.sleep(600)
    server.run()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "serve")
