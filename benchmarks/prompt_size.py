"""Prompt size per turn under each history policy, how much of it the next turn shares, and
what an episode's input costs at list prices with and without each provider's caching rule.

Plays the walkthrough's commands through the app (MCP on, a local OpenAI-protocol peer that
records each request body as OpenRouter would get it), once per history policy. For each
turn's first LLM request it measures the prompt (tools, then messages: the order providers
cache in) and the longest prefix it shares with the next turn's. Tokens are estimated as
characters / 4, as `domain/llm/tokens.py` measures a request: no tokenizer's vocabulary can
be downloaded here, and the peer's usage numbers are not real.

Caching rules and list prices (input only; output is the same under every policy), from each
provider's prompt-caching and pricing pages as of 2026-11:
- OpenAI, gpt-4.1-mini at $0.40/M: automatic from 1,024 tokens, hits in 128-token steps,
  cached input at 0.25x;
- Anthropic, Claude Sonnet 4.5 at $3/M: up to 4 breakpoints (our adapters keep the system
  prompt's and the 3 latest), a hit reads the prefix the last request wrote at 0.1x, what
  follows it up to the last breakpoint is written at 1.25x (5-minute cache), from 1,024 tokens;
- Gemini 2.5 Flash at $0.30/M: implicit caching from 2,048 tokens, cached input at 0.1x.

    python -m benchmarks.prompt_size [--turns 396] [--policies before,window,full,state] [--quick]
    python -m benchmarks.prompt_size --print-turn 50 [--policies window]   # the prompt, as sent
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.full_game import TOOL, WALKTHROUGH
from benchmarks.support import parse_arguments, print_table
from tests.support.llm_peers import OpenAIPeer
from zork_mcp.adapters.game.jericho import find_game_file
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main as app_main
from zork_mcp.domain.episode.history import HistoryPolicy
from zork_mcp.domain.llm.messages import AssistantText, UserMessage
from zork_mcp.domain.llm.tokens import messages_tokens, tokens_in

SERVERS = {
    "reasoning": {"command": "python", "args": ["-m", "zork_mcp.servers.reasoning"],
                  "env": {"DISABLE_THOUGHT_LOGGING": "true"}},
    "memory": {"command": "python", "env": {},
               "args": ["-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"]},
}  # fmt: skip


@dataclass(frozen=True)
class Pricing:
    name: str
    dollars_per_million: float
    minimum_tokens: int
    cached: float  # the price of a cached token, as a share of an uncached one
    step: int = 1  # hits come in whole steps of this many tokens
    written: float = 1.0  # the price of a token written to the cache (Anthropic's 1.25x)


PRICES = (
    Pricing("OpenAI gpt-4.1-mini", 0.40, 1024, 0.25, step=128),
    Pricing("Anthropic Sonnet 4.5", 3.00, 1024, 0.10, written=1.25),
    Pricing("Gemini 2.5 Flash", 0.30, 2048, 0.10),
)


def prompt_text(body: dict) -> str:
    """The prompt in cache order: tool definitions, then each message."""
    parts = [json.dumps(body.get("tools") or [], sort_keys=True)]
    parts += [json.dumps(message, sort_keys=True) for message in body["messages"]]
    return "".join(parts)


def shared_prefix(a: str, b: str) -> int:
    """Characters the two prompts share from the start."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


BEFORE = "before"  # the view before issue 45: state, beside the reasoning server alone


def project(directory: Path, policy: str) -> Path:
    servers = {"reasoning": SERVERS["reasoning"]} if policy == BEFORE else SERVERS
    (directory / "mcp_config.json").write_text(json.dumps({"mcpServers": servers}))
    pyproject = directory / "pyproject.toml"
    pyproject.write_text("[tool.zorkgpt.mcp]\nenabled = true\n")
    return pyproject


def record(turns: int, policy: str) -> list[dict]:
    """The first LLM request of each turn, as the peer received it."""
    peer = OpenAIPeer([action_reply(c) for c in WALKTHROUGH[:turns]], [TOOL], api_key=None)
    quiet = contextlib.redirect_stdout(io.StringIO())  # the run's own progress lines
    with tempfile.TemporaryDirectory() as directory, peer.serve() as url, quiet:
        code = app_main(
            [
                "--provider", "openrouter", "--base-url", f"{url}/v1", "--model", "prompt-size",
                "--game", str(find_game_file()), "--max-turns", str(turns), "--plain",
                "--config", str(project(Path(directory), policy)), "--log-dir", directory,
                "--episode-id", "prompts", "--history", "state" if policy == BEFORE else policy,
            ]
        )  # fmt: skip
    if code != 0 or peer.rejections:
        raise SystemExit(f"the {policy} run failed: exit {code}, {peer.rejections}")
    return peer.requests


def tokens(chars: int) -> int:
    return tokens_in(chars)


def history_tokens(body: dict) -> int:
    """The remembered turns' tokens as the history's budget measures them: every message
    between the system prompt and this turn's."""
    kinds = {"user": UserMessage, "assistant": AssistantText}
    return messages_tokens([kinds[m["role"]](_text(m)) for m in body["messages"][1:-1]])


def _text(message: dict) -> str:
    content = message.get("content") or ""
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def episode_cost(prompts: list[int], shared: list[int], price: Pricing) -> tuple[float, float]:
    """Dollars for the episode's prompts without caching, and with the provider's rule;
    `shared[i]` is what prompt i shares with prompt i - 1 (0 for the first)."""
    plain = sum(prompts) * price.dollars_per_million / 1e6
    cached = sum(_cached_cost(p, s, price) for p, s in zip(prompts, shared, strict=True))
    return plain, cached * price.dollars_per_million / 1e6


def _cached_cost(prompt: int, shared: int, price: Pricing) -> float:
    hit = shared // price.step * price.step if shared >= price.minimum_tokens else 0
    rest = prompt - hit
    written = rest if prompt >= price.minimum_tokens else 0
    return hit * price.cached + written * price.written + (rest - written)


@dataclass(frozen=True)
class Measured:
    """One policy's prompts: each turn's size and what it shares with the turn before."""

    sizes: list[int]
    shared: list[int]  # with the turn before (0 for the first)
    history_max: int

    @property
    def share(self) -> float:
        """The median share of a prompt that the next turn's prompt starts with."""
        shares = [after / size for after, size in zip(self.shared[1:], self.sizes, strict=False)]
        return statistics.median(shares) if shares else 0.0

    def row(self, policy: str, budget: int) -> list[str]:
        sizes = self.sizes
        p95 = statistics.quantiles(sizes, n=20)[-1] if len(sizes) > 1 else sizes[0]
        return [policy, f"{statistics.median(sizes):.0f}", f"{p95:.0f}", str(max(sizes)),
                f"{100 * self.share:.0f}%", f"{self.history_max} / {budget}"]  # fmt: skip


def measure(requests: list[dict]) -> Measured:
    texts = [prompt_text(body) for body in requests]
    prefix = [tokens(shared_prefix(a, b)) for a, b in itertools.pairwise(texts)]
    past = max(history_tokens(body) for body in requests)
    return Measured([tokens(len(text)) for text in texts], [0, *prefix], past)


def first_requests(requests: list[dict]) -> list[dict]:
    return [b for b in requests if not any(m["role"] == "tool" for m in b["messages"])]


def show(body: dict, turn: int) -> None:
    """A request's messages as the model reads them (its tool definitions summarised)."""
    names = [tool["function"]["name"] for tool in body.get("tools") or ()]
    print(f"turn {turn}: {len(body['messages'])} messages; tools offered: {', '.join(names)}")
    for message in body["messages"]:
        print(f"\n--- {message['role']}")
        print(_text(message))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=len(WALKTHROUGH))
    parser.add_argument(
        "--policies",
        default=f"{BEFORE},window,full,state",
        help=f"history policies; {BEFORE!r} is state with the reasoning server alone, as before",
    )
    parser.add_argument("--print-turn", type=int, help="print that turn's messages and stop")
    # a quick run plays the default policy alone: every policy is an app run of its own
    arguments = parse_arguments(parser, {"turns": 5, "policies": "window"})
    turns = arguments.turns
    os.environ.setdefault("OPENROUTER_API_KEY", "benchmark-not-a-key")
    if arguments.print_turn:
        policy = arguments.policies.split(",")[0]
        show(first_requests(record(arguments.print_turn, policy))[-1], arguments.print_turn)
        return
    budget = HistoryPolicy().budget_tokens
    size_rows, cost_rows = [], []
    for policy in arguments.policies.split(","):
        found = measure(first_requests(record(turns, policy)))
        size_rows.append(found.row(policy, budget))
        for price in PRICES:
            plain, cached = episode_cost(found.sizes, found.shared, price)
            cost_rows.append([policy, price.name, f"${plain:.4f}", f"${cached:.4f}",
                              f"{100 * (1 - cached / plain):.0f}%"])  # fmt: skip
    print(
        f"prompt per turn over {turns} walkthrough turns (MCP on: reasoning and memory "
        f"servers, {BEFORE}: reasoning alone; OpenRouter's wire format; tokens = chars / 4)"
    )
    print_table(
        ["history", "tokens median", "p95", "max", "shared with the next, median",
         "history tokens max / budget"],
        size_rows,
    )  # fmt: skip
    print(f"\ninput cost of the {turns}-turn episode at list prices")
    print_table(["history", "provider", "no caching", "with its caching rule", "saved"], cost_rows)


if __name__ == "__main__":
    main()
