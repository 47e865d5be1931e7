"""A deterministic LLM over local HTTP (OpenAI protocol) whose play depends on MCP tools.

The model name says how well it plays: `p0.9-q0.2` follows the Zork I walkthrough with
probability 0.9 on a turn where tools were offered and 0.2 otherwise (it says "look" instead).
Its memory is its own objective, which the orchestrator shows it next turn
("Current objective: wt 3 ep 1"): the walkthrough step and the episode's random stream.
Episodes of one (model, tools) pair get streams 0, 1, 2, ... in the order they start, so
the set of a cell's outcomes is the same whatever the scheduling (a first turn that calls
a tool keeps its stream through the tool call's id: it has no objective yet). Every 4th
step with tools it first calls a tool (the reasoning server's, unless told another). Each
reply reports a cost, as OpenRouter does.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from jericho.game_info import zork1

from tests.support.llm_peers import OpenAIPeer
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply

WALKTHROUGH = zork1["walkthrough"].split("/")
TOOL = "reasoning.sequentialthinking"
MODEL = re.compile(r"^p(?P<p>[0-9.]+)-q(?P<q>[0-9.]+)$")
MEMORY = re.compile(r"Current objective: wt (?P<step>\d+) ep (?P<stream>\d+) turn (?P<turn>\d+)")
COST_PER_TOKEN = 1e-6
THOUGHT = {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


def uniform(*parts: object) -> float:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class WalkthroughPeer(OpenAIPeer):
    replies: list = field(default_factory=list)
    canonical_tools: tuple[str, ...] = (TOOL,)
    api_key: str | None = None
    tool: str = TOOL
    tool_arguments: dict[str, Any] = field(default_factory=lambda: dict(THOUGHT))
    streams: Counter[tuple[str, bool]] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)
    latency: float = 0.0  # seconds each answer takes, as a real model's do
    first_turns: dict[str, int] = field(default_factory=dict)  # tool call id -> stream

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict, bytes]:
        """Decided and rendered per request: many episodes ask at once."""
        if self.latency:
            time.sleep(self.latency)
        return 200, {}, json.dumps(self.render(self.decide(body), body)).encode()

    def render(self, reply: Any, body: dict[str, Any]) -> dict[str, Any]:
        if self.count_tokens:  # billed by size, as a provider bills
            reply = replace(reply, usage=None)
        rendered = super().render(reply, body)
        usage = rendered["usage"]
        usage["cost"] = COST_PER_TOKEN * (usage["prompt_tokens"] + usage["completion_tokens"])
        return rendered

    def decide(self, body: dict[str, Any]) -> Any:
        tools = bool(body.get("tools"))
        # this turn's message, the last user one: earlier ones are remembered turns
        state = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        step, stream, turn = self._memory(state, body["model"], tools, body["messages"])
        if tools and step % 4 == 0 and body["messages"][-1]["role"] != "tool":
            reply = tool_calls_reply((self.tool, self.tool_arguments))
            if not MEMORY.search(state):
                with self.lock:
                    self.first_turns[reply.tool_calls[0].id] = stream  # type: ignore[index]
            return reply
        p, q = (float(x) for x in MODEL.match(body["model"]).groups())  # type: ignore[union-attr]
        follows = uniform(body["model"], tools, stream, turn) < (p if tools else q)
        action = WALKTHROUGH[step % len(WALKTHROUGH)] if follows else "look"
        memory = f"wt {step + follows} ep {stream} turn {turn + 1}"
        return action_reply(action, thinking=f"step {step}", new_objective=memory)

    def _memory(
        self, state: str, model: str, tools: bool, messages: list[dict[str, Any]]
    ) -> tuple[int, int, int]:
        found = MEMORY.search(state)
        if found:
            return int(found["step"]), int(found["stream"]), int(found["turn"])
        called = [c.get("id") for m in messages for c in m.get("tool_calls") or ()]
        with self.lock:
            for call_id in called:
                if call_id in self.first_turns:
                    return 0, self.first_turns[call_id], 0
            stream = self.streams[(model, tools)]
            self.streams[(model, tools)] += 1
        return 0, stream, 0
