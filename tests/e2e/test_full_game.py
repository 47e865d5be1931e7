"""The whole product: `main()` with a local HTTP server playing the LLM, the real
OpenAI-compatible adapter, the real MCP stdio adapter with our reasoning server (a fresh
process every turn), and real Jericho on zork1.z3 with seed 12."""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from pathlib import Path

import pytest

from tests.support.llm_peers import ProviderPeer, peer_for
from tests.support.processes import live_descendants, processes_with_environment
from tests.support.walkthrough import TOOL, WALKTHROUGH, project, thought
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow


def play(peer: ProviderPeer, tmp_path: Path, zork_game: Path, *extra: str) -> tuple[int, list]:
    marker = uuid.uuid4().hex
    before = set(live_descendants(os.getpid()))
    with peer.serve() as url:
        code = main(
            [
                "--provider",
                "local",
                "--base-url",
                f"{url}/v1",
                "--model",
                "walkthrough",
                "--game",
                str(zork_game),
                "--max-turns",
                "400",
                "--plain",
                "--config",
                str(project(tmp_path, marker)),
                "--log-dir",
                str(tmp_path),
                "--episode-id",
                "e2e",
                *extra,
            ]
        )
    assert processes_with_environment("E2E_MARKER", marker) == [], "a server outlived the run"
    # A forked server carries the fork server's environment, not the marker: count processes.
    assert set(live_descendants(os.getpid())) <= before, "a server or fork server outlived the run"
    events = [json.loads(line) for line in (tmp_path / "e2e" / "events.jsonl").open()]
    return code, events


def test_the_walkthrough_wins_with_mcp_on(tmp_path, zork_game, capsys):
    peer = peer_for("openai", [action_reply(c) for c in WALKTHROUGH], [TOOL], api_key=None)
    code, events = play(peer, tmp_path, zork_game)
    kinds = Counter(event["event_type"] for event in events)
    turns = [event for event in events if event["event_type"] == "turn_complete"]
    [end] = [event for event in events if event["event_type"] == "episode_end"]
    assert code == 0 and peer.rejections == []
    assert len(turns) == len(WALKTHROUGH) == 396
    assert [turn["action"] for turn in turns] == WALKTHROUGH
    assert (end["score"], end["moves"], end["end_reason"]) == (350, 394, "game_over")
    assert kinds["mcp_iteration_start"] == 396 and kinds["mcp_session_complete"] == 396
    assert all(
        request["tools"][0]["function"]["name"] == "reasoning__sequentialthinking"
        for request in peer.requests
    )
    assert "score" in capsys.readouterr().out


def test_the_walkthrough_wins_with_mcp_off(tmp_path, zork_game):
    peer = peer_for("openai", [action_reply(c) for c in WALKTHROUGH], [TOOL], api_key=None)
    code, events = play(peer, tmp_path, zork_game, "--no-mcp")
    [end] = [event for event in events if event["event_type"] == "episode_end"]
    assert code == 0 and (end["score"], end["end_reason"]) == (350, "game_over")
    assert all("tools" not in request and "response_format" in request for request in peer.requests)
    # no MCP event but the run's own statement that MCP is off
    said = [event for event in events if event["event_type"].startswith("mcp_")]
    assert [(e["event_type"], e["mcp_enabled"]) for e in said] == [("mcp_state", False)]


def test_turns_that_think_with_tools_reach_the_server_and_the_logs(tmp_path, zork_game):
    commands = WALKTHROUGH[:30]
    replies = []
    for index, command in enumerate(commands):
        if index % 5 == 0:
            replies.append(tool_calls_reply((TOOL, thought(1)), (TOOL, thought(2))))
        replies.append(action_reply(command, thinking=f"turn {index}"))
    peer = peer_for("openai", replies, [TOOL], api_key=None)
    code, events = play(peer, tmp_path, zork_game, "--max-turns", "30")
    kinds = Counter(event["event_type"] for event in events)
    results = [e for e in events if e["event_type"] == "mcp_tool_result"]
    assert code == 0 and peer.rejections == []
    assert kinds["mcp_tool_call"] == 12 and len(results) == 12
    assert all(not result["is_error"] and result["result_type"] == "dict" for result in results)
    answered = [
        json.loads(m["content"])
        for request in peer.requests
        for m in request["messages"]
        if m["role"] == "tool"
    ]
    assert {
        "thoughtNumber": 2,
        "totalThoughts": 2,
        "nextThoughtNeeded": False,
        "branches": [],
        "thoughtHistoryLength": 2,
    } in [a["content"] for a in answered]
    [end] = [event for event in events if event["event_type"] == "episode_end"]
    assert (end["turns"], end["tool_calls"], end["end_reason"]) == (30, 12, "turn_limit")
    log = (tmp_path / "e2e" / "episode.log").read_text()
    assert "Iteration 1: Agent calling tool reasoning.sequentialthinking" in log
    assert "Tool arguments:" in log and "Agent action: N" in log


def test_an_episode_through_openais_responses_api_keeps_its_rules(tmp_path, zork_game, monkeypatch):
    """GPT-6.1 Sol takes tools only through the Responses API: the registry sends it there,
    tool turns and forced final answers both, with its reasoning passed back encrypted."""
    commands = WALKTHROUGH[:8]
    replies = []
    for index, command in enumerate(commands):
        if index % 3 == 0:  # every third turn thinks with the tool until it must answer
            replies += [tool_calls_reply((TOOL, thought(1))) for _ in range(3)]
        replies.append(action_reply(command, thinking=f"turn {index}"))
    peer = peer_for("openai-responses", replies, [TOOL])
    monkeypatch.setenv("OPENAI_API_KEY", peer.api_key)
    project_file = project(tmp_path, uuid.uuid4().hex, max_tool_iterations=3)
    episode = ["--game", str(zork_game), "--max-turns", str(len(commands)), "--plain"]
    logs = ["--config", str(project_file), "--log-dir", str(tmp_path), "--episode-id", "e2e"]
    with peer.serve() as url:
        model = ["--provider", "openai", "--model", "gpt-6.1-sol", "--base-url", f"{url}/v1"]
        code = main([*model, *episode, *logs])
    events = [json.loads(line) for line in (tmp_path / "e2e" / "events.jsonl").open()]
    turns = [event for event in events if event["event_type"] == "turn_complete"]
    assert code == 0 and peer.rejections == [] and peer.replies == []
    assert [turn["action"] for turn in turns] == commands
    finals = [r for r in peer.requests if "text" in r]
    assert len(finals) == 3 and all("tools" not in r for r in finals)
    assert all(r["text"]["format"]["name"] == "AgentResponse" for r in finals)
    sent_back = [i for r in peer.requests for i in r["input"] if i["type"] == "reasoning"]
    assert sent_back and all(i["encrypted_content"] for i in sent_back)
