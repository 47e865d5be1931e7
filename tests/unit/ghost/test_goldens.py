"""Replay every golden through the real adapters and real MCP servers; the result must match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.golden_scenarios import GOLDENS, PROVIDERS, SCENARIOS, discover_tools
from tests.support.llm_peers import peer_for
from tests.support.peer_checks import (
    Issued,
    check_anthropic,
    check_gemini,
    check_openai,
    check_responses,
)
from zork_mcp.ghost.__main__ import main as ghost_cli
from zork_mcp.ghost.goldens import GoldenMismatch, load_golden, record, replay, stable_view

pytestmark = pytest.mark.slow
GOLDEN_FILES = sorted(GOLDENS.glob("*/*.json"))


def test_every_provider_has_every_scenario():
    names = {(path.parent.name, path.stem) for path in GOLDEN_FILES}
    assert names == {(p, s.name) for p in PROVIDERS for s in SCENARIOS}


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
async def test_replay_gives_the_recorded_result(path: Path):
    golden = load_golden(path)
    result, transport = await replay(golden)
    assert stable_view(result.model_dump()) == golden["golden_output"]
    assert transport.served == len(golden["provider_responses"])
    scenario_checks[path.stem](result)


def _multi_step(result) -> None:
    tools = [entry.tool_name for entry in result.tool_chain]
    assert result.success and len(tools) == 4 and tools[0] == "thinking.sequentialthinking"
    assert all(entry.success for entry in result.tool_chain)
    assert "leaflet" in result.tool_chain[1].result and "Taken" in result.tool_chain[2].result
    assert "WELCOME TO ZORK" in result.tool_chain[3].result
    assert result.execution_metadata.servers_connected == 2
    assert result.execution_metadata.tools_discovered == 5


def _backtracking(result) -> None:
    meta = result.execution_metadata
    assert result.success and meta.backtrack_count == 1
    assert [e.recovery_action.startswith("backtracked") for e in result.errors] == [True, True]
    retried = result.tool_chain[-1]
    assert (
        retried.success and retried.retry_attempt == 1 and retried.arguments == {"action": "look"}
    )
    backtrack = [m for m in result.conversation_history if m.role == "user"][-1]
    assert backtrack.content.startswith("The previous approach failed.")


def _max_iterations(result) -> None:
    assert not result.success and result.execution_metadata.total_iterations == 3
    assert result.errors[-1].tool_name is None and "max_iterations" in result.errors[-1].error
    assert result.final_result.startswith("I explored")


scenario_checks = {
    "multi_step_chain": _multi_step,
    "error_recovery_backtracking": _backtracking,
    "max_iterations": _max_iterations,
}


async def test_a_changed_run_is_caught_not_silently_replayed():
    golden = load_golden(GOLDENS / "openai" / "multi_step_chain.json")
    golden["input"] = {**golden["input"], "max_iterations": 2}
    with pytest.raises(GoldenMismatch, match="differs from the recording"):
        await replay(golden)


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_recorded_request_keeps_the_providers_rules(path: Path):
    """A golden must not preserve a request the real provider would answer with a 400."""
    golden = load_golden(path)
    protocol = path.parent.name
    check, headers = STRICT_CHECKS[protocol]
    signatures: dict[str, str] = {}
    issued = Issued()
    for exchange in golden["provider_responses"]:
        if protocol == "gemini":
            check(headers, exchange["request"], "key", signatures)
            signatures.update(_signatures(exchange["response"]))
        elif protocol == "openai-responses":
            check(headers, exchange["request"], "key", issued)
            _issue(exchange["response"], issued)
        else:
            check(headers, exchange["request"], "key")


def _issue(response: dict, issued: Issued) -> None:
    """What a Responses answer handed out: its reasoning, and the calls that followed it."""
    reasoning = None
    for item in response["output"]:
        if item["type"] == "reasoning":
            reasoning = item["id"]
            issued.encrypted[item["id"]] = item.get("encrypted_content")
        elif item["type"] == "function_call" and reasoning:
            issued.reasoning_of_call[item["id"]] = reasoning


def _signatures(response: dict) -> dict[str, str]:
    parts = [p for c in response.get("candidates", []) for p in c["content"]["parts"]]
    return {
        p["functionCall"]["id"]: p["thoughtSignature"]
        for p in parts
        if "functionCall" in p and "thoughtSignature" in p
    }


STRICT_CHECKS = {
    "openai": (check_openai, {"authorization": "Bearer key"}),
    "openai-responses": (check_responses, {"authorization": "Bearer key"}),
    "anthropic": (check_anthropic, {"x-api-key": "key", "anthropic-version": "2023-06-01"}),
    "gemini": (check_gemini, {"x-goog-api-key": "key"}),
}


def test_goldens_hold_no_key_and_no_headers():
    for path in GOLDEN_FILES:
        text = path.read_text()
        assert "test-key-" not in text and "authorization" not in text.lower()
        assert all(
            set(r) >= {"request", "response"} for r in json.loads(text)["provider_responses"]
        )


def test_the_inspector_prints_flow_chain_and_metrics(capsys):
    assert ghost_cli(["inspect", str(GOLDENS / "gemini" / "error_recovery_backtracking.json")]) == 0
    printed = capsys.readouterr().out
    for expected in ("conversation", "tool chain", "metrics", "backtracks=1", "game.play_action"):
        assert expected in printed


def test_recording_without_a_key_says_which_variable(capsys):
    assert ghost_cli(["record", str(GOLDENS / "anthropic" / "max_iterations.json")]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().out


def test_replay_from_the_command_line_prints_the_result(capsys):
    assert ghost_cli(["replay", str(GOLDENS / "openai" / "multi_step_chain.json")]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["success"] is True and len(printed["tool_chain"]) == 4


async def test_record_against_a_local_peer_makes_a_golden_that_replays():
    """record() for real: a provider peer over HTTP on 127.0.0.1, real MCP servers."""
    scenario = next(s for s in SCENARIOS if s.name == "max_iterations")
    shipped = load_golden(GOLDENS / "openai" / "max_iterations.json")
    peer = peer_for("openai", list(scenario.replies), await discover_tools())
    with peer.serve() as url:
        golden = await record(
            scenario.inputs("openai"),
            peer.api_key,
            test_name="fresh",
            description="recorded in a test",
            source="a local peer",
            base_url=f"{url}/v1",
        )
    assert peer.rejections == [] and peer.replies == []
    assert [r["path"] for r in golden["provider_responses"]] == ["/v1/chat/completions"] * 4
    assert golden["provider_responses"][0]["token_usage"] == {
        "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
    }  # fmt: skip
    assert golden["input"] == shipped["input"]
    assert peer.api_key not in json.dumps(golden)
    chain = [(e["tool_name"], e["arguments"]) for e in golden["golden_output"]["tool_chain"]]
    assert chain == [
        (e["tool_name"], e["arguments"]) for e in shipped["golden_output"]["tool_chain"]
    ]
    result, _ = await replay(golden)
    assert stable_view(result) == golden["golden_output"]
