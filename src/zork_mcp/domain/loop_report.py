"""What the tool loop reports (requirement 7): one observer owns its events and its spans.

Every event carries the run's iteration and turn; the loop calls one method per thing that
happened and never builds an Event itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from zork_mcp.domain.batch_policy import CallOutcome
from zork_mcp.domain.context_budget import Compaction
from zork_mcp.domain.events import (
    LLM_GENERATION,
    Event,
    EventType,
    Level,
    tool_span_name,
)
from zork_mcp.domain.loop_policy import LoopLimits
from zork_mcp.domain.loop_records import ExitReason, LoopOutcome, LoopState, ToolCallRecord
from zork_mcp.domain.messages import LLMRequest, LLMResponse, ToolCall
from zork_mcp.domain.protocol_era import ServerProtocol
from zork_mcp.domain.span_facts import LLMAnswered, LLMCalled, ToolAnswered, ToolCalled
from zork_mcp.domain.tool_judgment import ToolRejection
from zork_mcp.domain.tool_offer import LeftOut
from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import ToolSpec

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
                EventType.MCP_TOOL_REJECTED,
                f"MCP server '{rejection.server}' listed a tool that cannot be offered "
                f"({rejection.tool!r}): {rejection.reason}; its other tools stay usable",
                Level.WARNING,
                server=rejection.server,
                tool=rejection.tool,
                reason=rejection.reason,
            )

    def protocols_spoken(self, protocols: Sequence[ServerProtocol]) -> None:
        for protocol in protocols:
            self._emit(
                EventType.MCP_SERVER_PROTOCOL,
                f"MCP server '{protocol.server}' is spoken to in MCP {protocol.version} "
                f"({protocol.era} era)",
                server=protocol.server,
                version=protocol.version,
                era=str(protocol.era),
            )

    def tools_left_out(self, left_out: Sequence[LeftOut]) -> None:
        by_reason: dict[str, list[str]] = {}
        for item in left_out:
            by_reason.setdefault(item.reason, []).append(item.tool)
        for reason, tools in by_reason.items():
            shown = ", ".join(tools[:TOOLS_NAMED]) + (" ..." if len(tools) > TOOLS_NAMED else "")
            self._emit(
                EventType.MCP_TOOLS_LEFT_OUT,
                f"{len(tools)} MCP tool(s) not offered to the LLM ({reason}): {shown}",
                Level.WARNING,
                tools=tools,
                reason=reason,
            )

    def iteration_started(self) -> None:
        most = self._limits.max_iterations
        self._emit(
            EventType.MCP_ITERATION_START,
            f"Agent tool-calling iteration {self._state.iterations}/{most}",
            max_iterations=most,
        )

    def unexpected_state(self, finish_reason: str | None) -> None:
        self._emit(
            EventType.MCP_UNEXPECTED_STATE,
            f"LLM returned no content and no tool_calls, finish_reason={finish_reason}",
            Level.WARNING,
            finish_reason=finish_reason,
        )

    def left_without_content(self, reason: ExitReason) -> None:
        iterations = self._state.iterations
        self._emit(
            EventType.MCP_NO_CONTENT,
            f"Agent exited tool loop without content after {iterations} "
            f"iterations ({reason.value}); asking for the final answer without tools",
            Level.WARNING,
            iterations=iterations,
            reason=reason.value,
        )

    def context_compacted(self, compaction: Compaction) -> None:
        self._emit(
            EventType.MCP_CONTEXT_COMPACTED,
            f"Context over budget (~{compaction.tokens_before} tokens): "
            f"{compaction.steps_condensed} older step(s) summarised, ~{compaction.tokens_after} "
            f"tokens sent",
            tokens_before=compaction.tokens_before,
            tokens_after=compaction.tokens_after,
            max_tokens=self._limits.context_budget.max_tokens,
            steps_condensed=compaction.steps_condensed,
            critical_kept=compaction.critical_kept,
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
            EventType.MCP_TOOL_CALL,
            f"Agent calling tool {name} with arguments that are not valid JSON",
            tool_name=name,
            arguments=call.function.arguments,
            arguments_error=str(error),
        )

    def tool_called(self, name: str, arguments: Mapping[str, Any]) -> None:
        self._emit(
            EventType.MCP_TOOL_CALL,
            f"Agent calling tool {name}",
            tool_name=name,
            arguments=arguments,
        )

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
        self._emit(
            EventType.MCP_TOOL_SKIPPED, f"Skipping {name}: {result.error_message}", tool_name=name
        )

    def circuit_opened(self, name: str, failures: int) -> None:
        self._emit(
            EventType.MCP_CIRCUIT_OPEN,
            f"Tool {name} failed {failures} times in a row: not called again",
            Level.WARNING,
            tool_name=name,
        )

    def backtracked(self, failed: list[ToolCallRecord]) -> None:
        self._emit(
            EventType.MCP_BACKTRACK,
            f"Backtracking after {len(failed)} failed tool call(s)",
            Level.WARNING,
            backtrack=len(self._state.backtracks),
            failed_tools=[r.tool_name for r in failed],
        )

    def answer_unparsed(self, content: str | None, error: str) -> None:
        self._emit(
            EventType.AGENT_PARSE_ERROR,
            f"Failed to parse agent response: {error}",
            Level.ERROR,
            raw_response=content,
            error=error,
        )

    def session_complete(self, outcome: LoopOutcome[Any], final_action: str | None) -> None:
        chain = outcome.tool_chain
        used = sorted({r.tool_name for r in chain if r.outcome is not CallOutcome.SKIPPED})
        self._emit(
            EventType.MCP_SESSION_COMPLETE,
            f"MCP session complete ({outcome.iterations} iterations, {len(chain)} tool calls)",
            iterations=outcome.iterations,
            tool_calls_count=len(chain),
            tools_used=used,
            final_action=final_action,
        )

    def _result_received(self, record: ToolCallRecord) -> None:
        name, content = record.tool_name, record.result.content
        self._emit(
            EventType.MCP_TOOL_RESULT,
            f"Tool result received from {name} ({record.duration_seconds:.1f}s)",
            tool_name=name,
            result_type=type(content).__name__,
            result_length=len(str(content)),
            result_preview=record.result.preview(RESULT_PREVIEW_CHARS),
            is_error=record.result.is_error,
            duration_ms=round(record.duration_seconds * 1000, 3),
            server_name=self._server_of(name),
            timeout_seconds=self._limits.tool_timeout_seconds,
        )

    def _timed_out(self, record: ToolCallRecord) -> None:
        self._emit(
            EventType.MCP_TOOL_TIMEOUT,
            f"Tool call timeout: {record.tool_name}",
            Level.WARNING,
            tool_name=record.tool_name,
            timeout_seconds=self._limits.tool_timeout_seconds,
        )

    def _session_broken(self, record: ToolCallRecord) -> None:
        self._emit(
            EventType.MCP_SESSION_BROKEN,
            f"Tool server stopped during {record.tool_name}: no more tool calls this turn",
            Level.WARNING,
            tool_name=record.tool_name,
            error=record.result.error_message,
        )

    def _call_failed(self, record: ToolCallRecord) -> None:
        self._emit(
            EventType.MCP_TOOL_ERROR,
            f"Tool call failed: {record.tool_name}",
            Level.WARNING,
            tool_name=record.tool_name,
            error=record.result.error_message,
            outcome=record.outcome.value,
        )

    def _server_of(self, tool_name: str) -> str | None:
        spec = self._tools.get(tool_name)
        return spec.server if spec else None

    def _emit(
        self, kind: EventType, message: str, level: Level = Level.INFO, **fields: Any
    ) -> None:
        fields = {"iteration": self._state.iterations, "turn": self._turn, **fields}
        self._telemetry.emit(Event(kind, message, level, fields))


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
