"""What the tool loop reports (requirement 7): one observer owns its events and its spans.

Every event carries the run's place (iteration and turn) and one typed fact (`loop_facts`,
`tool_facts`) as its fields; the loop calls one method per thing that happened and never
builds an Event itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from zork_mcp.domain.facts.events import LLM_GENERATION, Event, Level, tool_span_name
from zork_mcp.domain.facts.loop_facts import (
    AnswerUnparsed,
    Backtracked,
    ContextCompacted,
    EventPlace,
    IterationStarted,
    LoopFact,
    NoContent,
    ProtocolSpoken,
    SessionCompleted,
    ToolRejected,
    ToolsLeftOut,
    UnexpectedState,
)
from zork_mcp.domain.facts.span_facts import LLMAnswered, LLMCalled, ToolAnswered, ToolCalled
from zork_mcp.domain.facts.tool_facts import (
    ToolCallFailed,
    ToolCallRequested,
    ToolCircuitOpened,
    ToolResultReceived,
    ToolSessionBroken,
    ToolSkipped,
    ToolTimedOut,
)
from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse, ToolCall
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.loop.context_budget import Compaction
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.loop_records import ExitReason, LoopOutcome, LoopState, ToolCallRecord
from zork_mcp.domain.servers.protocol_era import ServerProtocol
from zork_mcp.domain.tools.tool_judgment import ToolRejection
from zork_mcp.domain.tools.tool_offer import LeftOut
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec

if TYPE_CHECKING:  # a port is a Protocol: the domain names it, never needs it at run time
    from zork_mcp.ports.telemetry import Telemetry


Generated = Callable[[LLMResponse], None]
Ran = Callable[[CallOutcome, ToolCallResult, float], None]
TOOLS_NAMED = 10  # in an event's message; its fields name them all
RESULT_PREVIEW_CHARS = 2000  # of a tool's result in its event, for the HTML report


class LoopReport:
    """The loop's observer: turns what happened in a run into events and spans."""

    def __init__(
        self,
        telemetry: Telemetry,
        turn: int,
        limits: LoopLimits,
        tools: Mapping[str, ToolSpec],
        state: LoopState,
    ) -> None:
        self._telemetry, self._turn, self._limits = telemetry, turn, limits
        self._tools, self._state = tools, state

    def tools_rejected(self, rejections: Sequence[ToolRejection]) -> None:
        for rejection in rejections:
            self._emit(
                ToolRejected(rejection.server, rejection.tool, rejection.reason),
                f"MCP server '{rejection.server}' listed a tool that cannot be offered "
                f"({rejection.tool!r}): {rejection.reason}; its other tools stay usable",
                Level.WARNING,
            )

    def protocols_spoken(self, protocols: Sequence[ServerProtocol]) -> None:
        for protocol in protocols:
            self._emit(
                ProtocolSpoken(protocol.server, protocol.version, str(protocol.era)),
                f"MCP server '{protocol.server}' is spoken to in MCP {protocol.version} "
                f"({protocol.era} era)",
            )

    def tools_left_out(self, left_out: Sequence[LeftOut]) -> None:
        by_reason: dict[str, list[str]] = {}
        for item in left_out:
            by_reason.setdefault(item.reason, []).append(item.tool)
        for reason, tools in by_reason.items():
            shown = ", ".join(tools[:TOOLS_NAMED]) + (" ..." if len(tools) > TOOLS_NAMED else "")
            self._emit(
                ToolsLeftOut(tools, reason),
                f"{len(tools)} MCP tool(s) not offered to the LLM ({reason}): {shown}",
                Level.WARNING,
            )

    def iteration_started(self) -> None:
        most = self._limits.max_iterations
        self._emit(
            IterationStarted(most), f"Agent tool-calling iteration {self._state.iterations}/{most}"
        )

    def unexpected_state(self, response: LLMResponse) -> None:
        reason, word = response.finish_reason, response.provider_reason
        said = f" (the provider said {word!r})" if word and word != reason else ""
        self._emit(
            UnexpectedState(reason, word),
            f"LLM returned no content and no tool_calls, finish_reason={reason}{said}",
            Level.WARNING,
        )

    def left_without_content(self, reason: ExitReason) -> None:
        iterations = self._state.iterations
        self._emit(
            NoContent(iterations, reason.value),
            f"Agent exited tool loop without content after {iterations} "
            f"iterations ({reason.value}); asking for the final answer without tools",
            Level.WARNING,
        )

    def context_compacted(self, compaction: Compaction) -> None:
        compacted = ContextCompacted(
            tokens_before=compaction.tokens_before,
            tokens_after=compaction.tokens_after,
            max_tokens=self._limits.context_budget.max_tokens,
            steps_condensed=compaction.steps_condensed,
            critical_kept=compaction.critical_kept,
        )
        self._emit(
            compacted,
            f"Context over budget (~{compaction.tokens_before} tokens): "
            f"{compaction.steps_condensed} older step(s) summarised, ~{compaction.tokens_after} "
            f"tokens sent",
        )

    @contextmanager
    def generation(self, model: str, request: LLMRequest) -> Iterator[Generated]:
        """The span of one LLM call; call what it yields with the response."""
        facts = LLMCalled(
            model=model,
            tools=len(request.tools or ()),
            tool_choice=request.tool_choice,
            forced_final=bool(request.response_format),
        )
        with self._telemetry.span(
            LLM_GENERATION, input=list(request.messages), facts=facts
        ) as span:

            def generated(response: LLMResponse) -> None:
                span.update(
                    output=_response_summary(response),
                    facts=LLMAnswered(response.model),
                    usage=response.usage,
                )

            yield generated

    def arguments_unparsed(self, call: ToolCall, error: ValueError) -> None:
        name = call.function.name
        self._emit(
            ToolCallRequested(name, call.function.arguments, arguments_error=str(error)),
            f"Agent calling tool {name} with arguments that are not valid JSON",
        )

    def tool_called(self, name: str, arguments: Mapping[str, Any]) -> None:
        self._emit(ToolCallRequested(name, arguments), f"Agent calling tool {name}")

    @contextmanager
    def tool_span(self, call: ToolCall, arguments: Mapping[str, Any]) -> Iterator[Ran]:
        """The span of one tool call; call what it yields with its outcome, result, duration."""
        name = call.function.name
        facts = ToolCalled(
            server_name=self._server_of(name),
            timeout_seconds=self._limits.tool_timeout_seconds,
            tool_name=name,
            call_id=call.id,
        )
        with self._telemetry.span(tool_span_name(name), input=arguments, facts=facts) as span:

            def ran(outcome: CallOutcome, result: ToolCallResult, duration: float) -> None:
                span.update(
                    output=result.to_dict(),
                    facts=ToolAnswered(
                        is_error=result.is_error,
                        outcome=outcome.value,
                        duration_ms=round(duration * 1000, 3),
                    ),
                )

            yield ran

    def call_recorded(self, record: ToolCallRecord) -> None:
        if record.outcome in (CallOutcome.SUCCEEDED, CallOutcome.TOOL_ERROR):
            self._result_received(record)
        if record.outcome is CallOutcome.TIMED_OUT:
            self._timed_out(record)
        elif record.outcome is CallOutcome.SESSION_BROKEN:
            self._session_broken(record)
        elif record.outcome is not CallOutcome.SUCCEEDED:
            self._call_failed(record)

    def call_skipped(self, name: str, result: ToolCallResult) -> None:
        self._emit(ToolSkipped(name), f"Skipping {name}: {result.error_message}")

    def circuit_opened(self, name: str, failures: int) -> None:
        self._emit(
            ToolCircuitOpened(name),
            f"Tool {name} failed {failures} times in a row: not called again",
            Level.WARNING,
        )

    def backtracked(self, failed: list[ToolCallRecord]) -> None:
        self._emit(
            Backtracked(len(self._state.backtracks), [r.tool_name for r in failed]),
            f"Backtracking after {len(failed)} failed tool call(s)",
            Level.WARNING,
        )

    def answer_unparsed(self, content: str | None, error: str) -> None:
        self._emit(
            AnswerUnparsed(content, error), f"Failed to parse agent response: {error}", Level.ERROR
        )

    def session_complete(self, outcome: LoopOutcome[Any], final_action: str | None) -> None:
        chain = outcome.tool_chain
        used = sorted({r.tool_name for r in chain if r.outcome is not CallOutcome.SKIPPED})
        self._emit(
            SessionCompleted(outcome.iterations, len(chain), used, final_action),
            f"MCP session complete ({outcome.iterations} iterations, {len(chain)} tool calls)",
        )

    def _result_received(self, record: ToolCallRecord) -> None:
        name, content = record.tool_name, record.result.content
        received = ToolResultReceived(
            tool_name=name,
            result_type=type(content).__name__,
            result_length=len(str(content)),
            result_preview=record.result.preview(RESULT_PREVIEW_CHARS),
            is_error=record.result.is_error,
            duration_ms=round(record.duration_seconds * 1000, 3),
            server_name=self._server_of(name),
            timeout_seconds=self._limits.tool_timeout_seconds,
        )
        self._emit(received, f"Tool result received from {name} ({record.duration_seconds:.1f}s)")

    def _timed_out(self, record: ToolCallRecord) -> None:
        self._emit(
            ToolTimedOut(record.tool_name, self._limits.tool_timeout_seconds),
            f"Tool call timeout: {record.tool_name}",
            Level.WARNING,
        )

    def _session_broken(self, record: ToolCallRecord) -> None:
        self._emit(
            ToolSessionBroken(record.tool_name, record.result.error_message),
            f"Tool server stopped during {record.tool_name}: no more tool calls this turn",
            Level.WARNING,
        )

    def _call_failed(self, record: ToolCallRecord) -> None:
        failed = ToolCallFailed(record.tool_name, record.result.error_message, record.outcome.value)
        self._emit(failed, f"Tool call failed: {record.tool_name}", Level.WARNING)

    def _server_of(self, tool_name: str) -> str | None:
        spec = self._tools.get(tool_name)
        return spec.server if spec else None

    def _emit(self, fact: LoopFact, message: str, level: Level = Level.INFO) -> None:
        place = EventPlace(iteration=self._state.iterations, turn=self._turn)
        self._telemetry.emit(Event.about(fact, message, level, place.fields()))


def _response_summary(response: LLMResponse) -> dict[str, Any]:
    calls = [
        {"name": c.function.name, "arguments": c.function.arguments}
        for c in response.tool_calls or ()
    ]
    return {
        "content": response.content,
        "tool_calls": calls,
        "finish_reason": response.finish_reason,
    }
