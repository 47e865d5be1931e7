"""The LLM contract for HTTP adapters, plus what only a provider peer can show.

Subclasses set `protocol` and `transport` ("mock": httpx.MockTransport, "server": a real
HTTP server on 127.0.0.1); the same peer checks every request by the provider's rules.
"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack

import httpx
import pytest

from tests.contract.llm_contract import TOOLS, LLMContract, tool_request
from tests.support.conversation import unanswered_tool_calls
from tests.support.llm_peers import HttpFault, ProviderPeer, peer_for
from tests.support.peer_adapters import MOCK_BASE, build_adapter
from zork_mcp.adapters.llm.endpoint import REDACTED, RateGate, RetryPolicy
from zork_mcp.adapters.llm.fake import action_reply, text_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer, hang
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.llm.messages import LLMRequest, RetryStats, ToolChoice, initial_messages
from zork_mcp.domain.loop.agent_response import final_answer_format
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.tool_loop import ToolLoop
from zork_mcp.domain.tools.tool_schema import ToolDefinition, ToolSpec, tool_definitions
from zork_mcp.domain.tools.wire_names import RULES, WireNameMap

# A typed definition, and each provider's own form of it (API references: chat completions'
# `tools`, Responses' flat function tools, Anthropic's `tools`, Gemini's functionDeclarations).
THINK = ToolDefinition(
    "box.think",
    "Think it over.",
    {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]},
)


def wire_form(protocol: str, name: str) -> list:
    parameters, description = dict(THINK.parameters), THINK.description
    return {
        "openai": [
            {
                "type": "function",
                "function": {"name": name, "description": description, "parameters": parameters},
            }
        ],
        "openai-responses": [
            {
                "type": "function",
                "name": name,
                "parameters": parameters,
                "strict": False,
                "description": description,
            }
        ],
        "anthropic": [{"name": name, "description": description, "input_schema": parameters}],
        "gemini": [
            {
                "functionDeclarations": [
                    {"name": name, "description": description, "parameters": parameters}
                ]
            }
        ],
    }[protocol]


# Each ToolChoice in each provider's words: where the body carries it, and what it says.
CHOICES = {
    "openai": ("tool_choice", {"auto": "auto", "none": "none", "required": "required"}),
    "openai-responses": ("tool_choice", {"auto": "auto", "none": "none", "required": "required"}),
    "anthropic": (
        "tool_choice",
        {"auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"}},
    ),
    "gemini": (
        "toolConfig",
        {
            choice: {"functionCallingConfig": {"mode": mode}}
            for choice, mode in {"auto": "AUTO", "none": "NONE", "required": "ANY"}.items()
        },
    ),
}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SleepRecorder:
    """Sleeps no time; with a clock, moves it on as a real sleep would."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.delays: list[float] = []
        self._clock = clock

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        if self._clock is not None:
            self._clock.now += delay


class HttpLLMContract(LLMContract):
    protocol: str = "openai"
    transport: str = "mock"

    @pytest.fixture
    async def peered(self):
        stack, clients = ExitStack(), []

        def make(replies, *, tools=TOOLS, key=None, sleep=None, retry=None):
            peer = peer_for(self.protocol, list(replies), [tool.name for tool in tools])
            if self.transport == "mock":
                client, base = httpx.AsyncClient(transport=peer.mock_transport()), MOCK_BASE
            else:
                client, base = httpx.AsyncClient(), stack.enter_context(peer.serve())
            clients.append(client)
            retry = retry or RetryPolicy(
                attempts=3, initial_delay=0.5, sleep=sleep or SleepRecorder()
            )
            return build_adapter(self.protocol, client, base, key or peer.api_key, retry), peer

        yield make
        for client in clients:
            await client.aclose()
        stack.close()

    @pytest.fixture
    def make_llm(self, peered):
        return lambda replies: peered(replies)[0]

    async def test_retry_after_is_honoured_then_the_answer_arrives(self, peered):
        sleep = SleepRecorder()
        llm, peer = peered(
            [HttpFault(429, "slow down", {"retry-after": "2"}), action_reply("look")], sleep=sleep
        )
        response = await llm.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        assert json.loads(response.content)["action"] == "look"
        assert sleep.delays == [2.0] and len(peer.requests) == 2

    async def test_a_429_pauses_every_episode_calling_that_provider(self, peered):
        """Episodes of one sweep worker share the provider's gate: the 429 that one meets
        makes the others wait as asked too, and each counts only what it met (issue 27)."""
        clock = FakeClock()
        gate, sleep = RateGate(clock), SleepRecorder(clock)
        first, second = RetryStats(), RetryStats()
        limited, _ = peered(
            [HttpFault(429, "slow down", {"retry-after": "30"})],
            retry=RetryPolicy(attempts=1, sleep=sleep, gate=gate, stats=first),
        )
        other, peer = peered(
            [action_reply("north")],
            retry=RetryPolicy(attempts=3, sleep=sleep, gate=gate, stats=second),
        )
        with pytest.raises(LLMError, match="429"):
            await limited.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        clock.now += 10
        response = await other.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        assert json.loads(response.content)["action"] == "north" and len(peer.requests) == 1
        assert sleep.delays == [20.0], "the other episode waited for the rest of the pause"
        assert (first.rate_limited, first.retries) == (1, 0)
        assert (second.rate_limited, second.retries) == (0, 0)

    async def test_an_episode_counts_its_429s_and_retries(self, peered):
        clock = FakeClock()
        stats, sleep = RetryStats(), SleepRecorder(clock)
        llm, _ = peered(
            [HttpFault(429, "slow down", {"retry-after": "2"}), HttpFault(503, "busy"),
             action_reply("look")],
            retry=RetryPolicy(attempts=3, sleep=sleep, gate=RateGate(clock), stats=stats),
        )  # fmt: skip
        await llm.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        assert sleep.delays[0] == 2.0 and len(sleep.delays) == 2, "no wait twice for one 429"
        assert (stats.rate_limited, stats.retries) == (1, 2)

    async def test_server_errors_are_retried_then_reported_without_the_key(self, peered):
        sleep = SleepRecorder()
        llm, peer = peered(
            [HttpFault(503, f"overloaded (key {ProviderPeer.api_key})")] * 3, sleep=sleep
        )
        with pytest.raises(LLMError) as caught:
            await llm.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        message = str(caught.value)
        assert caught.value.status == 503 and caught.value.provider in message
        assert "overloaded" in message and "after 3 attempts" in message
        assert peer.api_key not in message and REDACTED in message
        assert len(sleep.delays) == 2 and len(peer.requests) == 3

    async def test_a_bad_request_fails_at_once(self, peered):
        llm, peer = peered([HttpFault(400, "messages: field required")])
        with pytest.raises(LLMError, match=r"HTTP 400.*field required"):
            await llm.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        assert len(peer.requests) == 1

    async def test_a_wrong_key_is_refused_and_never_repeated(self, peered):
        wrong = "sk-wrong-0000-secret"
        llm, _ = peered([action_reply("look")], key=wrong)
        with pytest.raises(LLMError) as caught:
            await llm.complete(LLMRequest(tuple(initial_messages("s", "u"))))
        assert caught.value.status in (400, 401) and wrong not in str(caught.value)

    async def test_awkward_tool_names_go_out_safe_and_come_back_canonical(self, peered):
        specs = [
            ToolSpec("my-server", "do.it!"),
            ToolSpec("t", "ünïcode tool"),
            ToolSpec("s", "x" * 90),
        ]
        tools = tool_definitions(specs)
        names = [spec.canonical_name for spec in specs]
        llm, peer = peered(
            [tool_calls_reply(*[(name, {"n": i}) for i, name in enumerate(names)])], tools=tools
        )
        request = LLMRequest(tuple(initial_messages("s", "u")), tools, ToolChoice.AUTO)
        response = await llm.complete(request)
        assert [call.function.name for call in response.tool_calls] == names
        assert peer.rejections == []

    async def test_a_typed_definition_goes_out_in_the_providers_own_form(self, peered):
        llm, peer = peered([text_reply("ok")], tools=(THINK,))
        await llm.complete(LLMRequest(tuple(initial_messages("s", "u")), (THINK,)))
        name = WireNameMap([THINK.name], RULES[self.protocol]).to_wire(THINK.name)
        assert peer.requests[0]["tools"] == wire_form(self.protocol, name)
        assert peer.rejections == []

    @pytest.mark.parametrize("choice", list(ToolChoice))
    async def test_each_tool_choice_goes_out_in_the_providers_words(self, peered, choice):
        llm, peer = peered([text_reply("ok")])
        await llm.complete(LLMRequest(tuple(initial_messages("s", "u")), TOOLS, choice))
        key, words = CHOICES[self.protocol]
        assert peer.requests[0][key] == words[choice.value] and peer.rejections == []

    async def test_the_whole_loop_keeps_the_providers_rules(self, peered):
        def think(thought: str) -> str:
            return f"noted: {thought}"

        server = FakeToolServer("box", {"think": think, "hang": hang})
        # Only OpenAI's wire carries arguments as text that can be malformed JSON.
        text_wire = self.protocol in ("openai", "openai-responses")
        bad_arguments = "{bad json" if text_wire else {"thought": "fine"}
        tools = tool_definitions(server.specs())
        llm, peer = peered(
            [
                tool_calls_reply(
                    ("box.think", {"thought": "a"}),
                    ("box.hang", {}),
                    ("box.think", {"thought": "skipped"}),
                ),
                tool_calls_reply(("box.nope", {}), ("box.think", bad_arguments)),
                tool_calls_reply(("box.think", {"thought": "last"})),
                action_reply("open mailbox", "ready"),
            ],
            tools=tools,
        )
        async with server.open_session() as session:
            loop = ToolLoop(llm, session, LoopLimits(3, 0.2), FakeTelemetry(), time.monotonic)
            outcome = await loop.run(initial_messages("You play Zork.", "West of House"))
        assert peer.rejections == [] and len(peer.requests) == 4
        assert outcome.answer.response.action == "open mailbox" and outcome.forced_final
        assert unanswered_tool_calls(list(outcome.messages)) == []
        assert outcome.usage.total_tokens > 0

    async def test_only_the_final_call_asks_for_a_schema(self, peered):
        llm, peer = peered([tool_calls_reply(("box.think", {})), action_reply("look")])
        await llm.complete(tool_request())
        final = LLMRequest(tuple(initial_messages("s", "u")), response_format=final_answer_format())
        response = await llm.complete(final)
        assert json.loads(response.content)["action"] == "look"
        first, second = peer.requests
        assert not _asks_for_schema(first) and _asks_for_schema(second)

    async def test_cache_control_reaches_the_provider_where_it_is_honoured(self, peered):
        llm, peer = peered([text_reply("{}")])
        await llm.complete(LLMRequest(tuple(initial_messages("system text", "user text"))))
        body = json.dumps(peer.requests[0])
        expected = self.protocol in ("openai", "anthropic")
        assert ('"cache_control": {"type": "ephemeral"}' in body) == expected


def _asks_for_schema(body: dict) -> bool:
    choice = body.get("tool_choice")
    return (
        "response_format" in body
        or (isinstance(choice, dict) and choice.get("type") == "tool")
        or "responseSchema" in (body.get("generationConfig") or {})
        or ((body.get("text") or {}).get("format") or {}).get("type") == "json_schema"
    )
