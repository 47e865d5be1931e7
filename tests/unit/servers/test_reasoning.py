"""The reasoning server's tool as MCP clients see it, pinned to the listing it had before
its definition moved into `servers/thinking` (recorded from 52ed334): a changed schema or
description is a change every LLM prompt sees, so it must be made on purpose."""

from __future__ import annotations

import json
from pathlib import Path

from zork_mcp.servers.reasoning import build_server

PINNED = Path(__file__).with_name("reasoning_tools.json")


async def test_the_listed_tool_is_the_pinned_one():
    listed = await build_server().list_tools()
    seen = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed]
    assert seen == json.loads(PINNED.read_text())
