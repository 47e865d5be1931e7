"""One mcp_ghost() call over the fault server and a provider peer, and the check that it
left no server behind."""

from __future__ import annotations

import os
import sys
import uuid

import httpx

from tests.support.llm_peers import ProviderPeer
from tests.support.paths import FAULT_SERVER
from tests.support.processes import (
    descendants_before_the_test,
    forked_ahead,
    live_descendants,
    process_group_members,
    processes_with_environment,
)
from zork_mcp.adapters.mcp.stdio.fork_owner import process_fork_server
from zork_mcp.ghost import mcp_ghost


def servers(marker: str, *, command: str = sys.executable) -> dict:
    return {
        "mcpServers": {
            "faults": {"command": command, "args": [str(FAULT_SERVER)], "env": {"MARK": marker}}
        }
    }


async def ghost(peer: ProviderPeer, marker: str, **options):
    options.setdefault("server_config", servers(marker))
    async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
        return await mcp_ghost(
            system_prompt="Use the tools.",
            provider="openai",
            api_key=peer.api_key,
            user_prompt="Do it.",
            http_client=client,
            **options,
        )


def marker() -> str:
    return uuid.uuid4().hex


def assert_no_server_left(mark: str) -> None:
    """No spawned server (its environment holds the mark) and no forked one: a descendant
    of this process other than the fork server every call shares and the child it forked
    ahead (a plain one waits in its process group; a sealed one, with its relay, in its own
    session: issue 66), or one older than the test."""
    assert processes_with_environment("MARK", mark) == []
    shared = process_fork_server().started
    pids = shared.pids if shared is not None else []
    fork_server = process_group_members(pids) | forked_ahead(pids)
    known = fork_server | descendants_before_the_test()
    assert [pid for pid in live_descendants(os.getpid()) if pid not in known] == []
