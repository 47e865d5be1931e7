"""The fork server (issue 14): forked server processes are as fresh and as contained as
spawned ones, through the real adapter and real processes."""

from __future__ import annotations

import asyncio
import importlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import FAULT_SERVER, ROOT
from tests.support.processes import (
    assert_no_processes_left,
    processes_in_groups,
    processes_with_environment,
)
from zork_mcp.adapters.mcp.stdio import zygote
from zork_mcp.adapters.mcp.stdio.fork_lifecycle import MAX_RESTARTS, ForkServerState
from zork_mcp.adapters.mcp.stdio.fork_server import Forking, ForkServer, zygote_environment
from zork_mcp.adapters.mcp.stdio.sandbox import FOLDER_PREFIX, TEMP_VARIABLES
from zork_mcp.adapters.mcp.stdio.start_plan import plan_starts
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.adapters.posix.namespaces import namespaces_available
from zork_mcp.domain.errors import MCPConfigError, MCPServerStartupError
from zork_mcp.domain.servers.confinement import Sandbox
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = pytest.mark.slow
PROBE = (
    "import json, os, sys\n"
    "from mcp.server.mcpserver import MCPServer\n"
    "CALLS = 0\n"
    "server = MCPServer('probe')\n"
    "@server.tool()\n"
    "def count() -> int:\n"
    "    global CALLS\n"
    "    CALLS += 1\n"
    "    return CALLS\n"
    "@server.tool()\n"
    "def describe() -> str:\n"
    "    stat = open('/proc/self/stat').read().rsplit(')', 1)[1].split()\n"  # as the host sees
    "    return json.dumps({\n"
    "        'env': dict(os.environ), 'argv': sys.argv, 'cwd': os.getcwd(),\n"
    "        'path0': sys.path[0], 'name': __name__, 'pid': int(os.readlink('/proc/self')),\n"
    "        'pgid': int(stat[2]), 'sid': int(stat[3]), 'ppid': int(stat[1]),\n"
    "        'pidns': os.readlink('/proc/self/ns/pid'), 'inside': os.getpid(),\n"
    "        'fds': sorted(int(fd) for fd in os.listdir('/proc/self/fd')),\n"
    "    })\n"
    "server.run()\n"
)
SYSTEM = {
    "PATH": os.environ["PATH"],
    "HOME": "/root",
    "LANG": "C.UTF-8",
    "OPENROUTER_API_KEY": "sk-or-secret",
    "GITHUB_TOKEN": "ghp-secret",
}


@pytest.fixture
def probe(tmp_path) -> MCPServerConfig:
    script = tmp_path / "probe_server.py"
    script.write_text(PROBE)
    return MCPServerConfig(command="python", args=(str(script), "--flag", "x"), env={"MODE": "t"})


def probe_server(config: MCPServerConfig, tmp_path: Path, start: str, **options):
    options.setdefault("system_env", SYSTEM)
    options.setdefault("stderr_path", tmp_path / "stderr.log")
    return stdio_tool_server({"probe": config}, server_start=start, **options)


async def describe(server: McpStdioToolServer, name: str = "probe") -> dict:
    """What the server says of itself, its ids as the client sees them. A sealed server
    (issue 66) is the first process of its own PID namespace, under a relay outside it that
    leads its session: the relay is the process the client knows (`pid`, and its `ppid`)."""
    async with server.open_session([name]) as session:
        seen = json.loads((await session.call_tool(f"{name}.describe", {}, 10)).content)
        if seen["sid"] != seen["pid"]:
            assert seen["ppid"] == seen["sid"], "its relay leads its session"
            seen["pid"], seen["ppid"] = seen["sid"], _parent(seen["sid"])
        return seen


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.mark.parametrize("start", ["spawn", "fork"])
async def test_module_state_is_fresh_every_turn(tmp_path, probe, start):
    server = probe_server(probe, tmp_path, start)
    server.warm_up()
    counts = []
    for _ in range(3):
        async with server.open_session() as session:
            await session.call_tool("probe.count", {}, 10)
            counts.append((await session.call_tool("probe.count", {}, 10)).content)
    assert counts == [2, 2, 2]
    assert_no_processes_left(server)


async def test_a_forked_module_server_keeps_no_state_between_turns(tmp_path):
    config = MCPServerConfig(command="python", args=("-m", "zork_mcp.servers.reasoning"))
    server = stdio_tool_server({"reasoning": config}, server_start="fork")
    thought = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
    lengths = []
    for _ in range(3):
        async with server.open_session() as session:
            result = await session.call_tool("reasoning.sequentialthinking", thought, 10)
            lengths.append(result.content["thoughtHistoryLength"])
    assert lengths == [1, 1, 1]
    assert_no_processes_left(server)


def test_everything_the_fork_server_preloads_imports():
    """A failed preload is skipped (it is only a speed-up), so a renamed module would cost
    every forked server its start-up without a word: the names are checked here."""
    for module in zygote.PRELOAD:
        importlib.import_module(module)
    importlib.import_module(zygote.WARM_UP).warm_up()


async def reasoning_answers(start: str) -> tuple[list, list]:
    """The tools a reasoning server lists and its answers to a valid and an invalid thought."""
    config = MCPServerConfig(command="python", args=("-m", "zork_mcp.servers.reasoning"))
    server = stdio_tool_server({"reasoning": config}, server_start=start, background_spare=False)
    valid = {"thought": "t", "thoughtNumber": 3, "totalThoughts": 2, "nextThoughtNeeded": True,
             "branchFromThought": 1, "branchId": "b"}  # fmt: skip
    answers = []
    async with server.open_session() as session:
        for arguments in (valid, {**valid, "thoughtNumber": 0}):
            result = await session.call_tool("reasoning.sequentialthinking", arguments, 10)
            answers.append((result.is_error, result.content or result.error_message))
        tools = [(tool.name, tool.description, tool.input_schema) for tool in session.tools]
    assert_no_processes_left(server)
    return tools, answers


async def test_the_reasoning_server_forked_from_its_preloaded_tool_answers_as_spawned():
    """The fork server preloads the tool's definitions: same schemas, checks and answers."""
    spawned, forked = await reasoning_answers("spawn"), await reasoning_answers("fork")
    assert forked == spawned
    (valid, invalid) = forked[1]
    assert valid == (False, {"thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": True,
                             "branches": ["b"], "thoughtHistoryLength": 1})  # fmt: skip
    assert invalid[0] and "thoughtNumber" in str(invalid[1])


async def test_a_forked_server_sees_what_a_spawned_one_sees(tmp_path, probe):
    spawned_server = probe_server(probe, tmp_path, "spawn", background_spare=False)
    forked_server = probe_server(probe, tmp_path, "fork", background_spare=False)
    spawned, forked = await describe(spawned_server), await describe(forked_server)
    assert forked_server.fork_server_pids and forked["ppid"] in forked_server.fork_server_pids
    assert spawned["ppid"] == os.getpid()
    for seen in (spawned, forked):  # each process its own private folder (issue 47)
        private = {seen["env"].pop(name) for name in TEMP_VARIABLES}
        assert len(private) == 1 and FOLDER_PREFIX in private.pop()
    for key in ("env", "argv", "cwd", "path0", "name", "fds"):
        assert forked[key] == spawned[key], key
    for seen in (spawned, forked):
        assert seen["pgid"] == seen["sid"] == seen["pid"], "its own session and process group"
        assert seen["env"]["MODE"] == "t" and "OPENROUTER_API_KEY" not in seen["env"]
    assert_no_processes_left(spawned_server)
    assert_no_processes_left(forked_server)


async def test_the_fork_server_holds_no_credential_thread_or_other_socket(tmp_path, probe):
    server = probe_server(probe, tmp_path, "fork")
    assert server.fork_server_ready(30), "past exec and its imports"
    (pid,) = server.fork_server_pids
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert b"LANG=C.UTF-8" in environ
    assert not [entry for entry in environ if b"secret" in entry]
    assert len(os.listdir(f"/proc/{pid}/task")) == 1, "single-threaded, so fork is safe"
    links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    sockets = {
        link.removeprefix("socket:[").removesuffix("]") for link in links if "socket:" in link
    }
    assert len(sockets) == 2, f"its control socket and its pre-forked child's, no other: {links}"
    assert sockets <= unnamed_unix_sockets(), "socketpairs: no path anyone else could reach"
    assert_no_processes_left(server)


EXIT_PROBE = """
import atexit, sys, threading, time
from mcp.server.mcpserver import MCPServer
out = sys.argv[1]
left_open = open(out + ".open", "w")
left_open.write("written, never closed")
atexit.register(lambda: open(out + ".atexit", "w").write("atexit ran"))
def late():
    time.sleep(0.3)
    open(out + ".thread", "w").write("joined")
server = MCPServer("exit-probe")
@server.tool()
def ping() -> str:
    return "pong"
server.run()
threading.Thread(target=late).start()
raise SystemExit("exiting with a message")
"""


@pytest.mark.parametrize("start", ["spawn", "fork"])
async def test_a_server_ends_as_the_interpreter_ends_it(tmp_path, start):
    """Non-daemon threads joined, atexit handlers run, open files flushed, the SystemExit
    message printed: what a forked child keeps of interpreter shutdown (issue 14)."""
    script, out = tmp_path / "exit_probe.py", tmp_path / "out"
    script.write_text(EXIT_PROBE)
    config = MCPServerConfig(  # confined: it may write its report where the test reads it
        command="python", args=(str(script), str(out)), sandbox=Sandbox(write=(str(tmp_path),))
    )
    server = probe_server(config, tmp_path, start, background_spare=False)
    async with server.open_session() as session:
        assert (await session.call_tool("probe.ping", {}, 10)).content == "pong"
    assert_no_processes_left(server)  # close() waits for every server process to end
    written = {
        suffix: Path(f"{out}.{suffix}").read_text() for suffix in ("open", "atexit", "thread")
    }
    assert written == {"open": "written, never closed", "atexit": "atexit ran", "thread": "joined"}
    assert "exiting with a message" in (tmp_path / "stderr.log").read_text()


def unnamed_unix_sockets() -> set[str]:
    """Inodes of Unix sockets with no path (socketpairs), from /proc/net/unix."""
    rows = Path("/proc/net/unix").read_text().splitlines()[1:]
    return {fields[6] for fields in (row.split() for row in rows) if len(fields) == 7}


async def test_the_fault_cases_fail_the_same_way_when_forked(tmp_path):
    config = MCPServerConfig(command=sys.executable, args=(str(FAULT_SERVER), "exit-at-start"))
    server = stdio_tool_server({"faults": config}, server_start="fork", background_spare=False)
    with pytest.raises(MCPServerStartupError, match="exited during startup"):
        async with server.open_session():
            pass
    assert_no_processes_left(server)


def test_fork_mode_refuses_a_server_it_cannot_fork():
    config = MCPServerConfig(command="npx", args=("-y", "some-server"))
    with pytest.raises(MCPConfigError, match='server_start = "auto"'):
        stdio_tool_server({"thinking": config}, server_start="fork")


async def test_a_lost_fork_server_means_one_warning_a_spawn_and_a_restart(tmp_path, probe):
    warnings: list[str] = []
    server = probe_server(probe, tmp_path, "auto", background_spare=False, warn=warnings.append)
    assert server.fork_server_ready(30)
    first = await describe(server)
    (zygote,) = server.fork_server_pids
    assert first["ppid"] == zygote
    os.kill(zygote, signal.SIGKILL)
    await asyncio.sleep(0.2)
    fallback = await describe(server)
    assert fallback["ppid"] == os.getpid(), "spawned while the fork server is gone"
    assert len(warnings) == 1 and "spawning" in warnings[0]
    assert server.fork_server_ready(30)
    later = await describe(server)
    assert later["ppid"] in server.fork_server_pids and later["ppid"] != zygote
    assert len(warnings) == 1
    assert_no_processes_left(server)


def forked_start(forking: Forking, server: ForkServer) -> object:
    """What Forking gives a start it could fork: a process, or None to spawn it."""
    return forking.start(sys.executable, ("-m", "zork_mcp.servers.reasoning"), server.env, -1)


def kill_the_fork_server(server: ForkServer) -> None:
    os.killpg(server.pids[-1], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while server.alive and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not server.alive


def test_a_fork_server_that_keeps_dying_is_restarted_then_left_dead():
    """Each loss is one warning, a spawn and a restart, MAX_RESTARTS times; the next loss
    leaves it dead: one last warning, and every later start is spawned without a word."""
    server = ForkServer(zygote_environment(os.environ), StderrLog(None))
    warnings: list[str] = []
    forking = Forking(server, warnings.append)
    server.start_once()
    for _ in range(MAX_RESTARTS + 1):
        forking.ready(0)  # the restart, if one was started, has launched
        kill_the_fork_server(server)
        assert forked_start(forking, server) is None
    assert [warning.split(" (")[0] for warning in warnings] == [
        *["MCP fork server unavailable"] * MAX_RESTARTS,
        "MCP fork server lost again",
    ]
    assert forked_start(forking, server) is None and len(warnings) == MAX_RESTARTS + 1
    assert server.state is ForkServerState.LEFT_DEAD
    assert len(server.pids) == MAX_RESTARTS + 1
    server.close()
    assert processes_in_groups(server.pids) == []


def test_a_closed_fork_server_is_never_started_again():
    """Closed is final, even for a start that comes late (a restart's thread, a spare's
    start_once): it would leave a fork server that nothing closes."""
    warnings: list[str] = []
    for started in (False, True):
        server = ForkServer(zygote_environment(os.environ), StderrLog(None))
        if started:
            server.start_once()
        server.close()
        server.start()
        server.start_once()
        assert forked_start(Forking(server, warnings.append), server) is None
        assert len(server.pids) == started and not server.alive
        assert server.state is ForkServerState.CLOSED
        assert processes_in_groups(server.pids) == []
    assert warnings == []


async def test_a_connect_attempt_starts_at_most_one_process(tmp_path):
    config = MCPServerConfig(command=sys.executable, args=(str(FAULT_SERVER), "exit-at-start"))
    server = stdio_tool_server({"faults": config}, stderr_path=tmp_path / "stderr.log")
    server.warm_up()
    started = [len(server.server_pids)]
    for _ in range(2):
        with pytest.raises(MCPServerStartupError):
            async with server.open_session():
                pass
        started.append(len(server.server_pids))
    assert started[0] == 1, "the warm-up spare"
    assert all(b - a <= 1 for a, b in itertools.pairwise(started)), started
    deadline = time.monotonic() + 15
    while server.live_processes and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # the used processes are retiring; a spare would stay
    assert server.live_processes == 0, "a failed connect leaves no spare behind"
    assert_no_processes_left(server)


@pytest.mark.parametrize("server_start", ["auto", "fork"])
async def test_a_start_waits_for_the_importing_fork_server_and_is_forked(
    tmp_path, probe, server_start
):
    """A start while the fork server imports waits for it, in "auto" as in "fork": spawning
    meanwhile would cost ~1 s of CPU against ~0.5 s, and be no sooner ready."""
    server = McpStdioToolServer(
        {"probe": probe},
        plan_starts({"probe": probe}, SYSTEM, server_start),
        system_env=SYSTEM,
        stderr_path=tmp_path / "stderr.log",
        background_spare=False,
    )
    assert not server.fork_server_ready(0)  # launched, certainly not ready yet
    first = await describe(server)
    assert first["ppid"] in server.fork_server_pids, first
    assert_no_processes_left(server)


async def test_a_tool_server_that_starts_nothing_launches_no_fork_server(tmp_path, probe):
    server = probe_server(probe, tmp_path, "auto")
    server.close()
    assert server.fork_server_pids == []


async def test_every_turn_starts_one_process_and_leaves_one_spare(tmp_path, probe):
    server = probe_server(probe, tmp_path, "fork")
    for turn in range(1, 4):
        await describe(server)
        server.spares_started()  # in the background, once the session was connected
        assert len(server.server_pids) == turn + 1
    assert_no_processes_left(server)


CLIENT = """
import asyncio, json, sys, time
from zork_mcp.adapters.mcp.stdio import zygote
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig
config = MCPServerConfig(command="python", args=(sys.argv[1],))
server = stdio_tool_server({"probe": config}, server_start="fork")
server.warm_up()
async def hold():
    async with server.open_session() as session:
        await session.call_tool("probe.count", {}, 10)
        for _ in range(1000):  # the spare starts in the background (its folder made first)
            if len(server.spawned_pids) >= 3:
                break
            await asyncio.sleep(0.01)
        print(json.dumps(server.spawned_pids), flush=True)
        await asyncio.sleep(600)
asyncio.run(hold())
"""


def test_a_sigkilled_client_leaves_no_process(tmp_path, probe):
    mark = f"{os.getpid()}-{tmp_path.name}"  # in every process the fork server forks
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, probe.args[0]],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,
        env={**os.environ, "ZORK_MCP_TEST_MARK": mark},
    )
    assert client.stdout is not None
    pids = json.loads(client.stdout.readline())
    assert len(pids) == 3, "the fork server, the session's process and the spare"
    # each server a relay outside its namespaces and the server in them (issue 66)
    each = 2 if namespaces_available() else 1
    # the client, its fork server, the two servers and the child forked ahead, of their kind
    expected = 2 + 3 * each
    deadline = time.monotonic() + 10  # the fork server forks ahead once it has answered
    while len(_marked(mark)) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_marked(mark)) == expected
    client.kill()
    client.wait()
    deadline = time.monotonic() + 15
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked(mark) == []


def _marked(mark: str) -> list[int]:
    return processes_with_environment("ZORK_MCP_TEST_MARK", mark)


@pytest.mark.skipif(not namespaces_available(), reason="needs user namespaces")
async def test_sealed_and_plain_servers_are_forked_in_turn_each_as_its_entry_says(tmp_path, probe):
    """The fork server's spare is of the kind the last request asked for (a sealed one makes
    its namespaces ahead); a request of the other kind gets one made for it."""
    plain = MCPServerConfig.model_validate({**probe.model_dump(), "sandbox": False})
    server = stdio_tool_server(
        {"plain": plain, "probe": probe},
        server_start="fork",
        background_spare=False,
        system_env=SYSTEM,
        stderr_path=tmp_path / "stderr.log",
    )
    ours = os.readlink("/proc/self/ns/pid")
    try:
        seen = [await describe(server, name) for name in ("probe", "probe", "plain", "probe")]
    finally:
        server.close()
    assert [one["pidns"] == ours for one in seen] == [False, False, True, False]
    # A namespace of its own each: the first process of a PID namespace, and a namespace whose
    # first process has ended takes no other. (Not told by the namespaces' inode numbers: the
    # kernel gives a freed one's number to the next, as it did here under load.)
    assert [one["inside"] == 1 for one in seen] == [True, True, False, True]
    assert all(one["ppid"] in server.fork_server_pids for one in seen)
    assert_no_processes_left(server)
