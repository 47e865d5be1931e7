"""A deliberately broken MCP server in plain JSON-RPC, fast to start (no mcp import).

    python hostile_server.py CASE               # stdio
    python hostile_server.py CASE --http PORT   # Streamable HTTP at http://127.0.0.1:PORT/mcp

Each case misbehaves in one way (a bad tool list, a bad answer, floods, a stubborn child
process...) and otherwise serves the tool `good`, which answers "good:" + its `text`.
Other tools it lists answer "called:" + their name. Over stdio it exits when stdin closes.

Over HTTP a request's answer is the JSON body of its POST, or with HOSTILE_HTTP_ANSWERS=sse
one SSE event in a text/event-stream body (CRLF line ends); GET and DELETE are 405;
a notification or response gets 202, and server notifications are dropped (so
list_changed_storm serves its plain answers). The cases about stdio framing and processes
(STDIO_ONLY) are refused in HTTP mode.

Environment: HOSTILE_FLOOD (notifications for log_flood), HOSTILE_STDERR_BYTES (bytes for
stderr_flood), HOSTILE_PID_FILE (where stubborn_child writes its child's pid),
HOSTILE_ID_LAST=1 (long_list writes its answer's id after its result, as the TypeScript SDK
does).
"""

import base64
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

GOOD_TOOL = "good"
CASES = (
    "empty_name",
    "name_not_string",
    "many_tools",
    "schema_missing",
    "schema_null",
    "schema_list",
    "schema_string",
    "required_not_list",
    "deep_schema",
    "odd_names",
    "ref_cycle",
    "huge_enum",
    "unreadable_list",
    "list_not_object",
    "log_flood",
    "odd_content",
    "stderr_flood",
    "stubborn_child",
    "server_requests",
    "wrong_ids",
    "dies_after_answer",
    "no_initialize_answer",
    "unknown_version",
    "junk_stdout",
    "list_changed_storm",
    "big_result",
    "long_line",
    "long_list",
    "slow_bytes",
    "bad_result_item_only",
    "unreadable_answer",
)
GOOD = {
    "name": GOOD_TOOL,
    "description": "A tool that works.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
}
OBJECT = {"type": "object"}
ODD_NAMES = ["with space", "dotted.name", "slash/name", "ünïcödé", "x" * 300, "dup", "dup"]
NODE = {"$ref": "#/$defs/Node"}
CLIENT_REQUESTS = (
    (
        "s1",
        "sampling/createMessage",
        {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5},
    ),
    (
        "s2",
        "elicitation/create",
        {"message": "?", "requestedSchema": {"type": "object", "properties": {}}},
    ),
    ("s3", "roots/list", {}),
)
MEGABYTE_OF_LINES = (b"e" * 1023 + b"\n") * 1024
STDIO_ONLY = (
    "log_flood",
    "stderr_flood",
    "stubborn_child",
    "server_requests",
    "wrong_ids",
    "dies_after_answer",
    "no_initialize_answer",
    "junk_stdout",
    "long_line",
    "long_list",
    "slow_bytes",
)
SESSION_ID = "0123456789abcdef0123456789abcdef"

case = ""
outbox: list[dict] | None = None  # over HTTP: the messages one request is answered with


def command(name: str) -> list[str]:
    return [sys.executable, str(Path(__file__)), name]


def many_tools() -> list[dict]:
    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    return [
        {
            "name": f"tool_{i:04d}",
            "description": f"Tool {i:04d}. ".ljust(200, "z"),
            "inputSchema": schema,
        }
        for i in range(5000)
    ]


def deep_schema(depth: int = 400) -> dict:
    schema = dict(OBJECT)
    for _ in range(depth - 1):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def odd_tools() -> list[dict]:
    return [
        {"name": name, "description": f"Odd tool {i}.", "inputSchema": OBJECT}
        for i, name in enumerate(ODD_NAMES)
    ]


def ref_cycle_tool() -> dict:
    node = {"type": "object", "properties": {"child": NODE}}
    schema = {"type": "object", "properties": {"node": NODE}, "$defs": {"Node": node}}
    return {"name": "tree", "description": "A recursive tree.", "inputSchema": schema}


def huge_enum_tool() -> dict:
    choice = {"type": "string", "enum": [f"choice_{i:05d}" for i in range(20_000)]}
    schema = {"type": "object", "properties": {"choice": choice}}
    return {"name": "pick", "description": "Pick one of many.", "inputSchema": schema}


EXTRA_TOOLS: dict[str, Callable[[], list]] = {
    "empty_name": lambda: [{"name": "", "inputSchema": OBJECT}],
    "name_not_string": lambda: [{"name": 42, "inputSchema": OBJECT}],
    "many_tools": many_tools,
    "schema_missing": lambda: [{"name": "bad"}],
    "schema_null": lambda: [{"name": "bad", "inputSchema": None}],
    "schema_list": lambda: [{"name": "bad", "inputSchema": [1, 2]}],
    "schema_string": lambda: [{"name": "bad", "inputSchema": {"type": "string"}}],
    "required_not_list": lambda: [
        {
            "name": "bad",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": "a",
            },
        }
    ],
    "deep_schema": lambda: [{"name": "bad", "inputSchema": deep_schema()}],
    "odd_names": odd_tools,
    "ref_cycle": lambda: [ref_cycle_tool()],
    "huge_enum": lambda: [huge_enum_tool()],
}


def tools() -> list:
    return [*EXTRA_TOOLS.get(case, list)(), GOOD]


def odd_content() -> list:
    image = base64.b64encode(bytes(i % 256 for i in range(3000))).decode()
    audio = base64.b64encode(bytes(i % 256 for i in range(1000))).decode()
    resource = {"uri": "file:///tmp/y.txt", "mimeType": "text/plain", "text": "y" * 5000}
    return [
        {"type": "text", "text": "first"},
        {"type": "hologram", "data": "zzz"},
        {"type": "image", "data": image, "mimeType": "image/png"},
        {"type": "audio", "data": audio, "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///tmp/x.txt", "name": "x.txt"},
        {"type": "resource", "resource": resource},
        {"type": "text", "text": "last"},
        "not an object",
    ]


def encode(message: object) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


def write(data: bytes) -> None:
    out = sys.stdout.buffer
    step = 8 if case == "slow_bytes" else max(len(data), 1)
    for start in range(0, len(data), step):
        out.write(data[start : start + step])
        out.flush()


def send(message: dict) -> None:
    if outbox is not None:
        outbox.append(message)
        return
    if case == "junk_stdout":
        write(b"this line is not JSON\n" + b"\xff\xfe junk\n")
    write(encode(message))


def reply(request_id: object, result: object) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def notify(method: str, all_params: list[dict]) -> None:
    if outbox is not None:
        return
    lines = (encode({"jsonrpc": "2.0", "method": method, "params": p}) for p in all_params)
    write(b"".join(lines))


def text_result(text: str, is_error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def read_messages() -> Iterator[dict]:
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if isinstance(message, dict):
            yield message


def await_response(inbox: Iterator[dict], request_id: str) -> dict:
    for message in inbox:
        if "method" not in message and message.get("id") == request_id:
            return message
        handle(message, inbox)
    raise SystemExit(0)


def ask_client(inbox: Iterator[dict]) -> str:
    answers = []
    for request_id, method, params in CLIENT_REQUESTS:
        send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        response = await_response(inbox, request_id)
        answers.append(response["error"] if "error" in response else response.get("result"))
    return json.dumps(answers)


def flood_log() -> None:
    count = int(os.environ.get("HOSTILE_FLOOD", "100000"))
    notify("notifications/message", [{"level": "info", "data": f"flood {i}"} for i in range(count)])


def flood_stderr() -> None:
    total = int(os.environ.get("HOSTILE_STDERR_BYTES", "100000000"))
    err = sys.stderr.buffer
    for start in range(0, total, len(MEGABYTE_OF_LINES)):
        err.write(MEGABYTE_OF_LINES[: total - start])
        err.flush()


def write_long_line(inbox: Iterator[dict]) -> None:
    chunk = b"x" * 1_000_000
    for _ in range(200):
        write(chunk)
    for _ in inbox:
        pass


def write_long_list(request_id: object) -> None:
    """A tools/list answer of 100 MB in one line (a tool's description), written in pieces."""
    pad = {"name": "padded", "description": "@", "inputSchema": OBJECT}
    answer = encode({"tools": [GOOD, pad]}).rstrip(b"\n")
    before, after = answer.split(b'"@"')
    framed = {"jsonrpc": "2.0", "id": request_id, "result": "@"}
    if os.environ.get("HOSTILE_ID_LAST") == "1":
        framed = {"result": "@", "jsonrpc": "2.0", "id": request_id}
    start, end = encode(framed).split(b'"@"')
    write(start + before + b'"')
    for _ in range(100):
        write(b"x" * 1_000_000)
    write(b'"' + after + end)


def good_result(arguments: dict, inbox: Iterator[dict]) -> object:
    if case == "server_requests":
        return text_result(ask_client(inbox))
    if case == "odd_content":
        return {"content": odd_content(), "isError": False}
    if case == "big_result":
        return text_result("x" * 50_000_000)
    if case == "bad_result_item_only":
        return {"content": [{"type": "hologram"}], "isError": False}
    if case == "unreadable_answer":
        return "not an object"
    return text_result("good:" + str(arguments.get("text", "")))


def wrong(request_id: object) -> object:
    return request_id + 1000 if isinstance(request_id, int) else f"{request_id}-wrong"


def call_good(request_id: object, arguments: dict, inbox: Iterator[dict]) -> None:
    if case == "long_line":
        write_long_line(inbox)
        return
    if case == "log_flood":
        flood_log()
    if case == "stderr_flood":
        flood_stderr()
    result = good_result(arguments, inbox)
    reply(wrong(request_id) if case == "wrong_ids" else request_id, result)
    if case == "dies_after_answer":
        os._exit(0)


def call(request_id: object, params: dict, inbox: Iterator[dict]) -> None:
    name, arguments = params.get("name"), params.get("arguments")
    arguments = arguments if isinstance(arguments, dict) else {}
    if name == GOOD_TOOL:
        call_good(request_id, arguments, inbox)
    elif any(isinstance(tool, dict) and tool.get("name") == name for tool in tools()):
        reply(request_id, text_result(f"called:{name}"))
    else:
        reply(request_id, text_result(f"no tool {name}", is_error=True))


def initialize_result(params: dict) -> dict:
    version = params.get("protocolVersion")
    return {
        "protocolVersion": "1999-01-01" if case == "unknown_version" else version,
        "capabilities": {"tools": {"listChanged": True}, "logging": {}},
        "serverInfo": {"name": "hostile", "version": "0"},
    }


def list_result() -> object:
    if case == "unreadable_list":
        return {"tools": "not a list"}
    if case == "list_not_object":
        return [1, 2, 3]
    return {"tools": tools()}


def handle(message: dict, inbox: Iterator[dict]) -> None:
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    if not isinstance(method, str) or "id" not in message:
        return
    if method == "initialize":
        if case != "no_initialize_answer":
            reply(request_id, initialize_result(params))
    elif method == "tools/list" and case == "long_list":
        write_long_list(request_id)
    elif method == "tools/list":
        reply(request_id, list_result())
        if case == "list_changed_storm":
            notify("notifications/tools/list_changed", [{}] * 1000)
    elif method == "tools/call":
        call(request_id, params, inbox)
    elif method == "ping":
        reply(request_id, {})
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        send({"jsonrpc": "2.0", "id": request_id, "error": error})


def start_stubborn_child() -> None:
    told, tell = os.pipe()  # its pid as the host sees it (not 2, in a sealed server)
    pid = os.fork()
    if pid == 0:
        os.write(tell, os.readlink("/proc/self").encode())
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        while True:
            time.sleep(60)
    os.close(tell)
    pid = int(os.read(told, 32))
    os.close(told)
    path = os.environ.get("HOSTILE_PID_FILE")
    if path:
        Path(path).write_text(str(pid), encoding="utf-8")


def answer(message: object) -> dict | None:
    """Over HTTP: the answer to one POSTed message, None for a notification or response."""
    global outbox
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None
    if "id" not in message:
        return None
    outbox = []
    try:
        handle(message, iter(()))
        return outbox[-1]
    finally:
        outbox = None


def serve_http(port: int) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            if self.path != "/mcp":
                return self.respond(404)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                message = json.loads(body)
            except ValueError:
                return self.respond(400)
            with lock:
                response = answer(message)
            if response is None:
                return self.respond(202)
            body = json.dumps(response, ensure_ascii=False).encode()
            headers = {"Content-Type": "application/json"}
            if os.environ.get("HOSTILE_HTTP_ANSWERS") == "sse":
                body = b"event: message\r\ndata: " + body + b"\r\n\r\n"
                headers = {"Content-Type": "text/event-stream"}
            if message.get("method") == "initialize":
                headers["Mcp-Session-Id"] = SESSION_ID
            self.respond(200, body, headers)

        def do_GET(self) -> None:
            self.respond(405, headers={"Allow": "POST"})

        do_DELETE = do_GET

        def respond(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def main() -> None:
    global case
    args = sys.argv[1:]
    http = len(args) == 3 and args[1] == "--http" and args[2].isdigit()
    if not (len(args) == 1 or http) or args[0] not in CASES:
        sys.exit(
            f"usage: hostile_server.py CASE [--http PORT], where CASE is one of: {', '.join(CASES)}"
        )
    case = args[0]
    if http:
        if case in STDIO_ONLY:
            sys.exit(f"hostile_server.py: case {case} is for stdio only")
        serve_http(int(args[2]))
        return
    if case == "stubborn_child":
        start_stubborn_child()
    inbox = read_messages()
    try:
        for message in inbox:
            handle(message, inbox)
    except BrokenPipeError:
        os._exit(0)


if __name__ == "__main__":
    main()
