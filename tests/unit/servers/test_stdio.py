"""Our servers' stdio transport: a pipe is read without a thread, line for line as a text
reader reads it, and a server answers alike whichever way its stdio is read."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.servers.stdio import _PipeLines

SERVER = [sys.executable, "-m", "zork_mcp.servers.reasoning"]


def lines_read_through_a_pipe(data: bytes, chunk: int) -> list[str]:
    read, write = os.pipe()
    os.write(write, data)  # within a pipe's buffer: the test keeps data under 64 KiB
    os.close(write)
    os.set_blocking(read, False)

    async def collect() -> list[str]:
        return [line async for line in _PipeLines(read)]

    original, _PipeLines.CHUNK = _PipeLines.CHUNK, chunk
    try:
        return anyio.run(collect)
    finally:
        _PipeLines.CHUNK = original
        os.close(read)


@settings(max_examples=300)
@given(
    parts=st.lists(st.binary(max_size=40) | st.sampled_from([b"\n", b"\r\n", "é€😀".encode()])),
    chunk=st.integers(1, 9),
)
def test_a_pipe_read_in_any_chunks_gives_the_lines_a_text_reader_gives(parts, chunk):
    """Newline-delimited as JSON-RPC over stdio is; bytes that are not UTF-8 replaced."""
    data = b"".join(parts)
    reader = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline="\n")
    assert lines_read_through_a_pipe(data, chunk) == list(reader)


HELLO = {"protocolVersion": "2025-06-18", "capabilities": {},
         "clientInfo": {"name": "t", "version": "1"}}  # fmt: skip


def call(call_id: int, thought: str, number: int) -> bytes:
    arguments = {"thought": thought, "thoughtNumber": number, "totalThoughts": 3,
                 "nextThoughtNeeded": True}  # fmt: skip
    params = {"name": "sequentialthinking", "arguments": arguments}
    message = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params}
    return json.dumps(message, ensure_ascii=False).encode()


CONVERSATION = [  # (a line as sent, whether it is answered)
    (
        json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": HELLO}).encode()
        + b"\r",
        True,
    ),  # a CRLF client
    (b'{"jsonrpc":"2.0","method":"notifications/initialized"}', False),
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', True),
    (call(2, "é€" * 150_000, 1), True),  # ~750 KB: many reads, and more than a pipe holds
    (call(3, "bad", 2).replace(b"bad", b"\xff\xfe bad"), True),  # not UTF-8: replaced
    (b"not json", False),
    (call(4, "still here", 3), True),
]


def converse(tmp: Path, *, stdout_to_a_file: bool) -> list[dict]:
    """The conversation, one line at a time, each answer awaited; stdout a pipe, or a file
    (then the SDK's threaded reader and writer serve it)."""
    out_path = tmp / "out.jsonl"
    with open(out_path, "wb") as out_file:
        server = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=out_file if stdout_to_a_file else subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "DISABLE_THOUGHT_LOGGING": "true"},
        )
        answers: list[dict] = []
        try:
            for line, answered in CONVERSATION:
                server.stdin.write(line + b"\n")  # type: ignore[union-attr]
                server.stdin.flush()  # type: ignore[union-attr]
                if answered:
                    answers.append(next_answer(server, out_path, len(answers)))
        finally:
            server.stdin.close()  # type: ignore[union-attr]
            server.wait(20)
    return answers


def next_answer(server: subprocess.Popen, out_path: Path, count: int) -> dict:
    if server.stdout is not None:
        ready, _, _ = select.select([server.stdout], [], [], 20)
        assert ready, "no answer within 20 s"
        return json.loads(server.stdout.readline())
    deadline = time.monotonic() + 20
    while (lines := out_path.read_bytes().split(b"\n"))[count:] in ([], [b""]):
        assert time.monotonic() < deadline, "no answer within 20 s"
        time.sleep(0.01)
    return json.loads(lines[count])


def test_a_server_answers_alike_over_pipes_and_over_the_sdks_threaded_streams(tmp_path):
    piped = converse(tmp_path, stdout_to_a_file=False)
    threaded = converse(tmp_path, stdout_to_a_file=True)
    assert piped == threaded
    assert [answer["id"] for answer in piped] == [0, 1, 2, 3, 4]
    history = [
        answer["result"]["structuredContent"]["thoughtHistoryLength"] for answer in piped[2:]
    ]
    assert history == [1, 2, 3], "every call reached the tool, the long one and the bad bytes too"


STRAY = """
import os, sys
from zork_mcp.servers.stdio import _pipe_wire
with _pipe_wire() as wire:
    print("stray", flush=True)
    os.write(wire[1], os.read(wire[0], 100))
print("after", flush=True)
"""


def test_while_serving_stray_output_goes_to_stderr_and_stdin_reads_nothing():
    done = subprocess.run(
        [sys.executable, "-c", STRAY], input=b"wire\n", capture_output=True, timeout=30
    )
    assert done.returncode == 0, done.stderr.decode()
    assert (done.stdout, done.stderr) == (b"wire\nafter\n", b"stray\n")
