"""An MCP stdio server that misbehaves on request, for fault tests of the real adapter.

python fault_server.py [serve|exit-at-start|hang-at-start|junk-then-serve|junk-only|flaky]
python fault_server.py http PORT [open|auth|500]   (Streamable HTTP on 127.0.0.1:PORT/mcp)

`auth` answers 401 unless `Authorization: Bearer $FAULT_TOKEN`; `500` answers 500 to all.

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
# The tools a client sees, by their qualified names (start_failing_http is for HTTP tests).
FAULT_TOOLS = ["faults.echo", "faults.fail", "faults.slow", "faults.crash", "faults.big"]


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


HTTP_FAILING: list[bool] = []


@server.tool()
def start_failing_http() -> str:
    """Over HTTP, answer 500 to every request after this one."""
    HTTP_FAILING.append(True)
    return "from now on: 500"


def flaky_start_fails() -> bool:
    with open(os.environ["FAULT_STARTS"], "a+", encoding="utf-8") as starts:
        starts.write("start\n")
        starts.seek(0)
        number = len(starts.read().splitlines())
    failing = {int(n) for n in os.environ.get("FAULT_FAILING_STARTS", "").split(",") if n}
    return number in failing


def serve_http(port: int, gate: str) -> None:
    import uvicorn

    app = server.streamable_http_app()

    async def gated(scope, receive, send):
        if scope["type"] == "http" and _refused(scope, gate):
            status = 401 if gate == "auth" and not HTTP_FAILING else 500
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": b"no"})
            return
        await app(scope, receive, send)

    uvicorn.run(gated, host="127.0.0.1", port=port, log_level="warning")


def _refused(scope, gate: str) -> bool:
    if gate == "500" or HTTP_FAILING:
        return True
    if gate != "auth":
        return False
    headers = dict(scope["headers"])
    expected = f"Bearer {os.environ['FAULT_TOKEN']}".encode()
    return headers.get(b"authorization") != expected


def main(mode: str) -> None:
    if mode == "http":
        serve_http(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "open")
        return
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
