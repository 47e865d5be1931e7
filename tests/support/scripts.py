"""Random tool-calling turns: an LLM script played through the real loop and the fakes.

A script is what the LLM says while tools are offered (tool-call batches, content, nothing)
and the answer it gives when asked without tools. Every call carries a unique `marker`
argument, so a call in the server's log is traced back to the call the LLM made.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from hypothesis import strategies as st

from tests.support.strategies import Answer, answers, json_objects
from zork_mcp.adapters.llm.fake import FunctionLLM
from zork_mcp.adapters.mcp.fake import FakeToolServer, crash, hang
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.adapters.telemetry.fanout import FanoutTelemetry
from zork_mcp.domain.llm.messages import (
    AssistantToolCalls,
    FinishReason,
    FunctionCall,
    LLMRequest,
    LLMResponse,
    ToolCall,
    ToolResultMessage,
    Usage,
    initial_messages,
)
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.loop.loop_records import LoopOutcome
from zork_mcp.domain.loop.tool_loop import Clock
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.ports.telemetry import Telemetry

SERVER = "box"
TIMEOUT = 0.02
STOP = FinishReason.STOP


class Kind(Enum):
    OK = "ok"  # a tool that answers with its arguments
    BLANK = "blank"  # no arguments at all: means {}
    TOOL_ERROR = "tool_error"  # the tool raises: an is_error result
    BAD_JSON = "bad_json"  # arguments that are not JSON
    NOT_OBJECT = "not_object"  # JSON arguments that are not an object
    UNKNOWN = "unknown"  # a tool the server does not have
    TIMEOUT = "timeout"  # a tool that never answers
    CRASH = "crash"  # the server dies during the call

    @property
    def executes(self) -> bool:
        """Reaches the server when it is its turn to run."""
        return self in EXECUTED_KINDS


EXECUTED_KINDS = {Kind.OK, Kind.BLANK, Kind.TOOL_ERROR, Kind.TIMEOUT, Kind.CRASH}
NOT_EXECUTED_FAILURES = {Kind.BAD_JSON, Kind.NOT_OBJECT, Kind.UNKNOWN}
TOOL_OF = {
    Kind.OK: "echo",
    Kind.BLANK: "echo",
    Kind.TOOL_ERROR: "fail",
    Kind.TIMEOUT: "hang",
    Kind.CRASH: "crash",
}


@dataclass(frozen=True)
class Call:
    kind: Kind
    arguments: dict[str, Any]
    indent: int | None = None

    def wire(self, call_id: str) -> ToolCall:
        return ToolCall(call_id, FunctionCall(self.name, self.argument_text(call_id)))

    @property
    def name(self) -> str:
        if self.kind is Kind.UNKNOWN:
            return f"{SERVER}.no_such_tool"
        if self.kind in (Kind.BAD_JSON, Kind.NOT_OBJECT):
            return f"{SERVER}.echo"
        return f"{SERVER}.{TOOL_OF[self.kind]}"

    def argument_text(self, call_id: str) -> str:
        if self.kind is Kind.BLANK:
            return " " * (self.indent or 0)
        if self.kind is Kind.BAD_JSON:
            return '{"marker": "' + call_id
        if self.kind is Kind.NOT_OBJECT:
            return json.dumps([call_id, self.arguments])
        return json.dumps({**self.arguments, "marker": call_id}, indent=self.indent)


@dataclass(frozen=True)
class Batch:
    calls: tuple[Call, ...]
    preamble: str | None = None


@dataclass(frozen=True)
class Content:
    answer: Answer


@dataclass(frozen=True)
class Nothing:
    """A response with neither content nor tool calls."""


Step = Batch | Content | Nothing

calls = st.builds(
    Call,
    st.sampled_from(Kind),
    json_objects.map(lambda d: {k: v for k, v in d.items() if k != "marker"}),
    st.none() | st.integers(0, 2),
)
healthy_calls = calls.filter(lambda c: c.kind in (Kind.OK, Kind.BLANK))
batches = st.builds(
    Batch, st.lists(calls, min_size=1, max_size=5).map(tuple), st.none() | st.text(max_size=10)
)
steps = st.one_of(batches, batches, batches, st.builds(Content, answers), st.just(Nothing()))


@dataclass(frozen=True)
class Script:
    steps: tuple[Step, ...]
    final: Answer
    max_iterations: int


scripts = st.builds(
    Script,
    st.lists(steps, max_size=7).map(tuple),
    answers,
    st.integers(min_value=1, max_value=6),
)


class ScriptedModel:
    """Plays a script: its steps while tools are offered, its final answer when they are not."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._steps = list(script.steps)
        self._ids = itertools.count(1)
        self.llm = FunctionLLM(self.respond, model="openai/gpt-4o-mini")
        self.responses: list[LLMResponse] = []
        self.sent: dict[str, Call] = {}  # call id -> the scripted call

    def respond(self, request: LLMRequest) -> LLMResponse:
        response = self._next(request)
        self.responses.append(response)
        return response

    def _next(self, request: LLMRequest) -> LLMResponse:
        usage = Usage(100, 10, 40)
        if not request.tools:
            return LLMResponse(self.script.final.text(), usage=usage, finish_reason=STOP)
        step = self._steps.pop(0) if self._steps else Content(self.script.final)
        if isinstance(step, Batch):
            ids = [f"c{next(self._ids)}" for _ in step.calls]
            self.sent.update(zip(ids, step.calls, strict=True))
            wire = [call.wire(call_id) for call_id, call in zip(ids, step.calls, strict=True)]
            reason = FinishReason.TOOL_CALLS
            return LLMResponse.of(step.preamble, wire, usage=usage, finish_reason=reason)
        if isinstance(step, Content):
            return LLMResponse(step.answer.text(), usage=usage, finish_reason=STOP)
        return LLMResponse(None, usage=usage, finish_reason=FinishReason.LENGTH)


def echo(**arguments: Any) -> dict[str, Any]:
    return arguments


def fail(**arguments: Any) -> None:
    raise RuntimeError(f"fail was called with marker {arguments.get('marker')}")


def box_server() -> FakeToolServer:
    return FakeToolServer(SERVER, {"echo": echo, "fail": fail, "hang": hang, "crash": crash})


@dataclass
class Played:
    script: Script
    outcome: LoopOutcome
    model: ScriptedModel
    server: FakeToolServer
    telemetry: FakeTelemetry
    requests: list[LLMRequest] = field(default_factory=list)

    @property
    def executed_markers(self) -> list[str]:
        return [call.arguments.get("marker", "") for call in self.server.calls]

    def batches(self) -> list[tuple[AssistantToolCalls, list[ToolResultMessage]]]:
        """Each assistant tool-calls message with the tool messages that answer it."""
        found, messages = [], list(self.outcome.messages)
        for index, message in enumerate(messages):
            if isinstance(message, AssistantToolCalls):
                answers = list(
                    itertools.takewhile(
                        lambda m: isinstance(m, ToolResultMessage), messages[index + 1 :]
                    )
                )
                found.append((message, answers))
        return found


def settings_for(script: Script, **overrides: Any) -> MCPSettings:
    return MCPSettings(
        enabled=True,
        max_tool_iterations=script.max_iterations,
        tool_call_timeout_seconds=TIMEOUT,
        **overrides,
    )


def play(
    script: Script,
    *,
    server: FakeToolServer | None = None,
    clock: Clock | None = None,
    telemetry: Telemetry | None = None,
) -> Played:
    """One turn of the real decide_action with this script, MCP on, the box server."""
    server = server or box_server()
    model = ScriptedModel(script)
    memory = FakeTelemetry()
    sink = FanoutTelemetry(memory, telemetry) if telemetry else memory
    ticks = itertools.count()
    outcome = asyncio.run(
        decide_action(
            llm=model.llm,
            messages=initial_messages("You play Zork.", "West of House"),
            settings=settings_for(script),
            telemetry=sink,
            clock=clock or (lambda: next(ticks) * 0.25),
            tool_server=server,
        )
    )
    return Played(script, outcome, model, server, memory, model.llm.requests)


def tool_results(played: Played) -> dict[str, dict[str, Any]]:
    """call id -> the decoded content of the tool message that answers it."""
    return {
        message.tool_call_id: json.loads(message.result.to_json())
        for message in played.outcome.messages
        if isinstance(message, ToolResultMessage)
    }


def offered_requests(played: Played) -> list[LLMRequest]:
    return [request for request in played.requests if request.tools]
