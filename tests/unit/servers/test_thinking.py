"""The reasoning server's thought history per MCP session (issue 16)."""

from __future__ import annotations

from zork_mcp.servers.thinking import SessionLogs, Thought


def think(logs: SessionLogs, session: str | None) -> int:
    return logs.of(session).add(Thought("t", 1, 1, True)).thoughtHistoryLength


def test_each_session_has_its_own_history_and_stdio_has_one():
    logs = SessionLogs()
    assert [think(logs, "a"), think(logs, "b"), think(logs, "a")] == [1, 1, 2]
    assert [think(logs, None), think(logs, None)] == [1, 2]


def test_only_the_most_recently_used_sessions_are_kept():
    logs = SessionLogs(keep=2)
    think(logs, "old")
    think(logs, "kept")
    think(logs, "old")  # used again: now the newest
    think(logs, "new")  # evicts "kept", the least recently used
    assert think(logs, "old") == 3 and think(logs, "kept") == 1
