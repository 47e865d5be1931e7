"""The MCP-Ghost golden scenarios, and how their goldens are authored without a live API.

Each scenario is an input for mcp_ghost and the LLM's side of the conversation. Authoring
runs mcp_ghost for real (real MCP servers, the real provider adapter) against a ProviderPeer,
which checks every request by the provider's rules and answers in the provider's documented
wire format; the exchange is recorded into tests/goldens/<provider>/<scenario>.json.

Re-author:   .venv/bin/python -m tests.support.golden_scenarios [protocol ...]
Re-record against the real API instead:   python -m zork_mcp.ghost record <golden>
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.llm_peers import peer_for
from zork_mcp.adapters.llm.fake import text_reply, tool_calls_reply
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.builders.providers import PROVIDERS as REGISTRY
from zork_mcp.domain.llm.messages import LLMResponse
from zork_mcp.domain.servers.server_config import MCPConfig
from zork_mcp.ghost.goldens import record, save_golden

GOLDENS = Path(__file__).resolve().parents[1] / "goldens"
# A golden folder per wire protocol: its provider and model (None: the provider's default).
# The registry sends GPT-6.1 Sol's tools through OpenAI's Responses API.
PROVIDERS = {
    "openai": ("openai", None),
    "openai-responses": ("openai", "gpt-6.1-sol"),
    "anthropic": ("anthropic", None),
    "gemini": ("gemini", None),
}
PEER_BASE = {
    "openai": "https://peer.invalid/v1",
    "openai-responses": "https://peer.invalid/v1",
    "anthropic": "https://peer.invalid",
    "gemini": "https://peer.invalid",
}
SERVERS = {
    "mcpServers": {
        "game": {"command": "python", "args": ["-m", "zork_mcp.servers.text_adventure"]},
        "thinking": {
            "command": "python",
            "args": ["-m", "zork_mcp.servers.reasoning"],
            "env": {"DISABLE_THOUGHT_LOGGING": "true"},
        },
    }
}
SYSTEM = (
    "You control a Zork I game through tools. game.play_action runs one game command; "
    "thinking.sequentialthinking helps you plan. Answer in plain text when done."
)


def think(thought: str, number: int, total: int, more: bool) -> dict[str, Any]:
    return {
        "thought": thought,
        "thoughtNumber": number,
        "totalThoughts": total,
        "nextThoughtNeeded": more,
    }


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    user_prompt: str
    replies: tuple[LLMResponse, ...]
    max_iterations: int = 10

    def inputs(self, protocol: str) -> dict[str, Any]:
        provider, model = PROVIDERS[protocol]
        return {
            "server_config": SERVERS,
            "system_prompt": SYSTEM,
            "provider": provider,
            "user_prompt": self.user_prompt,
            "model": model or REGISTRY[provider].default_model,
            "timeout": 30.0,
            "max_iterations": self.max_iterations,
            "enable_backtracking": True,
            "conversation_memory": True,
        }


SCENARIOS = (
    Scenario(
        "multi_step_chain",
        "Plan, then three dependent game commands, then a synthesis of what was found.",
        "Open the mailbox, read what is inside, and tell me what it says.",
        (
            tool_calls_reply(
                (
                    "thinking.sequentialthinking",
                    think("Open it, take the leaflet, read it.", 1, 1, False),
                ),
                preamble="Let me plan first.",
            ),
            tool_calls_reply(("game.play_action", {"action": "open mailbox"})),
            tool_calls_reply(
                ("game.play_action", {"action": "take leaflet"}),
                preamble="The mailbox holds a leaflet; I will take it.",
            ),
            tool_calls_reply(("game.play_action", {"action": "read leaflet"})),
            text_reply(
                "The mailbox held a leaflet. It reads: WELCOME TO ZORK! ZORK is a game of "
                "adventure, danger, and low cunning."
            ),
        ),
    ),
    Scenario(
        "error_recovery_backtracking",
        "A call with a wrong argument name and a call to a tool that does not exist fail; "
        "the model is told, backtracks, and recovers with the right call.",
        "What do I see if I look around?",
        (
            tool_calls_reply(
                ("game.play_action", {"command": "look"}),
                ("game.look_around", {}),
            ),
            tool_calls_reply(
                ("game.play_action", {"action": "look"}),
                preamble="I used the wrong argument; the tool takes `action`.",
            ),
            text_reply("You are west of a white house with a boarded front door and a mailbox."),
        ),
    ),
    Scenario(
        "max_iterations",
        "The model keeps calling tools; the run stops at max_iterations=3 and asks for a "
        "final answer without tools.",
        "Walk around until you find the treasure.",
        (
            tool_calls_reply(("game.play_action", {"action": "north"})),
            tool_calls_reply(("game.play_action", {"action": "east"})),
            tool_calls_reply(("game.inventory", {})),
            text_reply("I explored north and east of the house but found no treasure yet."),
        ),
        max_iterations=3,
    ),
)


async def discover_tools() -> list[str]:
    config = MCPConfig.model_validate(SERVERS)
    with stdio_tool_server(config.mcpServers, background_spare=False) as server:
        async with server.open_session() as session:
            return [spec.canonical_name for spec in session.tools]


async def author(scenario: Scenario, protocol: str, tools: list[str]) -> dict[str, Any]:
    peer = peer_for(protocol, list(scenario.replies), tools)
    golden = await record(
        scenario.inputs(protocol),
        peer.api_key,
        test_name=scenario.name,
        description=scenario.description,
        source=(
            f"authored: real MCP servers and the real {protocol} adapter, replies in the "
            f"{protocol} documented wire format from tests/support/llm_peers.py"
        ),
        transport=peer.mock_transport(),
        base_url=PEER_BASE[protocol],
    )
    if peer.rejections or peer.replies:
        raise RuntimeError(f"{scenario.name}/{protocol}: {peer.rejections or 'replies left'}")
    return golden


async def main(protocols: list[str]) -> None:
    tools = await discover_tools()
    for protocol in protocols or PROVIDERS:
        for scenario in SCENARIOS:
            golden = await author(scenario, protocol, tools)
            path = GOLDENS / protocol / f"{scenario.name}.json"
            save_golden(path, golden)
            print(f"wrote {path.relative_to(GOLDENS.parent.parent)}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
