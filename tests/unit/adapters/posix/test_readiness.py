"""A process holding more than 1024 descriptors (a sweep worker with dozens of episodes)
still plays its games and its MCP turns: `select` refused any descriptor numbered 1024 or
above ("filedescriptor out of range in select()"), and 15 of 64 episodes failed on it."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.paths import ROOT
from zork_mcp.adapters.posix.readiness import wait_readable

MANY_DESCRIPTORS = """
import asyncio, os, resource, sys
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # new ones are numbered above
from zork_mcp.adapters.game.jericho import JerichoGameEnv
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig
game = JerichoGameEnv(sys.argv[1], seed=12, forked=True)
game.reset()
print(game.step("open mailbox").text.strip().splitlines()[0])
game.close()
config = MCPServerConfig(command=sys.executable, args=("-m", "zork_mcp.servers.reasoning"))
server = stdio_tool_server({"reasoning": config}, server_start="fork")
async def turn():
    async with server.open_session() as session:
        return [tool.name for tool in session.tools]
print(asyncio.run(turn()))
server.close()
"""


def test_a_process_with_over_1024_descriptors_plays_games_and_mcp_turns(zork_game):
    done = subprocess.run(
        [sys.executable, "-c", MANY_DESCRIPTORS, str(zork_game)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    mailbox, tools = done.stdout.decode().splitlines()
    assert mailbox.startswith("Opening the small mailbox")
    assert "sequentialthinking" in tools


def test_wait_readable_takes_any_descriptor_and_times_out():
    read, write = os.pipe()
    high = os.dup2(read, 1500)
    try:
        assert not wait_readable(high, 0.01)
        os.write(write, b"x")
        assert wait_readable(high, 0.01)
    finally:
        for fd in (read, write, high):
            os.close(fd)
