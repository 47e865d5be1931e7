"""The tool-calling loop (requirements 1, 4.6, 5, 6.2-6.6): ask, run the tools, ask again, answer.

Tools are offered while iterating and response_format never is; the answer comes either as
content or from a forced final call (no tools) after the loop ran out, the LLM returned
nothing, or the tool server broke. A LoopPolicy says how that final call is asked, how its
content is read as the answer (an AgentResponse for the Zork agent, free text for MCP-Ghost),
and how failures are recovered from (backtracking, circuit breaker).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Generic, TypeVar

from zork_mcp.domain.batch_policy import (
    BatchStep,
    CallOutcome,
    error_result,
    next_step,
    parse_arguments,
    skip_result,
    timeout_result,
)
from zork_mcp.domain.context_budget import compact
from zork_mcp.domain.errors import MCPSessionBrokenError, MCPToolTimeoutError
from zork_mcp.domain.events import LLM_GENERATION, Event, EventType, Level, SpanKind, tool_span_name
from zork_mcp.domain.loop_policy import AGENT_POLICY, FAILED_OUTCOMES, LoopLimits, LoopPolicy
from zork_mcp.domain.loop_records import (
    Backtrack,
    ExitReason,
    LoopOutcome,
    LoopState,
    ToolCallRecord,
)
from zork_mcp.domain.messages import (
    LLMRequest,
    LLMResponse,
    Message,
    ToolCall,
    assistant_content_message,
    assistant_tool_calls_message,
    tool_message,
    user_message,
)
from zork_mcp.domain.recovery import CircuitBreaker, Failure, backtrack_prompt
from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import to_openai_tools
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.telemetry import Telemetry
from zork_mcp.ports.tool_server import ToolSession

A = TypeVar("A")
Clock = Callable[[], float]


class ToolLoop(Generic[A]):
    """One turn's loop over one (optional) tool session."""

    def __init__(
        self,
        llm: LLM,
        session: ToolSession | None,
        limits: LoopLimits,
        telemetry: Telemetry,
        clock: Clock,
        turn: int = 0,
        policy: LoopPolicy[A] = AGENT_POLICY,
    ) -> None:
        self._llm, self._session, self._limits = llm, session, limits
        self._telemetry, self._clock, self._turn = telemetry, clock, turn
        self._policy = policy
        self._breaker = CircuitBreaker(policy.recovery.breaker_threshold)
        self._tools = tuple(session.tools) if session else ()
        self._known = {spec.canonical_name: spec for spec in self._tools}
        self._state = LoopState()

    async def run(self, messages: list[Message]) -> LoopOutcome[A]:
        self._state.messages = messages
        content, reason = None, ExitReason.NO_TOOLS
        if self._tools:
            content, reason = await self._iterate(tuple(to_openai_tools(self._tools)))
        if reason is not ExitReason.CONTENT:
            content = await self._final_call(reason)
        elif content is not None:
            self._state.messages.append(assistant_content_message(content))
        return self._finish(content, reason)

    async def _iterate(self, offered: tuple[dict[str, Any], ...]) -> tuple[str | None, ExitReason]:
        for iteration in range(1, self._limits.max_iterations + 1):
            self._state.iterations = iteration
            self._emit(
                EventType.MCP_ITERATION_START,
                f"Agent tool-calling iteration {iteration}/{self._limits.max_iterations}",
                max_iterations=self._limits.max_iterations,
            )
            request = LLMRequest(tuple(self._state.messages), tools=offered, tool_choice="auto")
            response = await self._complete(request)
            if response.tool_calls:
                self._state.messages.append(assistant_tool_calls_message(response))
                if await self._run_batch(response) is BatchStep.STOP_TOOLS:
                    return None, ExitReason.SESSION_BROKEN
                continue
            if response.content and response.content.strip():
                return response.content, ExitReason.CONTENT
            self._emit(
                EventType.MCP_UNEXPECTED_STATE,
                f"LLM returned no content and no tool_calls, "
                f"finish_reason={response.finish_reason}",
                Level.WARNING,
                finish_reason=response.finish_reason,
            )
            return None, ExitReason.UNEXPECTED_STATE
        return None, ExitReason.MAX_ITERATIONS

    async def _final_call(self, reason: ExitReason) -> str | None:
        if reason is not ExitReason.NO_TOOLS:
            self._emit(
                EventType.MCP_NO_CONTENT,
                f"Agent exited tool loop without content after {self._state.iterations} "
                f"iterations ({reason.value}); asking for the final answer without tools",
                Level.WARNING,
                iterations=self._state.iterations,
                reason=reason.value,
            )
            self._state.messages.append(user_message(self._policy.final_prompt))
        request = LLMRequest(tuple(self._state.messages), response_format=self._policy.final_format)
        content = (await self._complete(request)).content
        if content is not None:
            self._state.messages.append(assistant_content_message(content))
        return content

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        request = self._within_budget(request)
        metadata = {
            "model": self._llm.model,
            "tools": len(request.tools or ()),
            "tool_choice": request.tool_choice,
            "forced_final": bool(request.response_format),
        }
        with self._telemetry.span(
            LLM_GENERATION,
            kind=SpanKind.GENERATION,
            input=list(request.messages),
            metadata=metadata,
        ) as span:
            response = await self._llm.complete(request)
            span.update(
                output=_response_summary(response),
                metadata={"response_model": response.model},
                usage=response.usage,
            )
        self._state.count(response)
        return response

    def _within_budget(self, request: LLMRequest) -> LLMRequest:
        """Over the context budget, send older steps condensed; the history itself stays whole."""
        compaction = compact(request.messages, self._limits.context_budget)
        if compaction is None:
            return request
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
        return replace(request, messages=compaction.messages)

    async def _run_batch(self, response: LLMResponse) -> BatchStep:
        step, records = BatchStep.NEXT_CALL, []
        for call in response.tool_calls or ():
            if step is BatchStep.NEXT_CALL:
                record = await self._call_tool(call, response.preamble)
                step = next_step(record.outcome)
            else:
                record = self._skip(call, step)
            self._state.messages.append(tool_message(call.id, record.result))
            records.append(record)
        self._state.chain.extend(records)
        if step is not BatchStep.STOP_TOOLS:
            self._backtrack_after(records)
        return step

    def _backtrack_after(self, records: list[ToolCallRecord]) -> None:
        failed = [r for r in records if r.outcome in FAILED_OUTCOMES]
        if not failed or len(self._state.backtracks) >= self._policy.recovery.max_backtracks:
            return
        prompt = backtrack_prompt(
            Failure(r.tool_name, r.result.error_message or "failed") for r in failed
        )
        self._state.messages.append(user_message(prompt))
        self._state.backtracks.append(
            Backtrack(self._state.iterations, tuple(r.call_id for r in failed), prompt)
        )
        self._emit(
            EventType.MCP_BACKTRACK,
            f"Backtracking after {len(failed)} failed tool call(s)",
            Level.WARNING,
            backtrack=len(self._state.backtracks),
            failed_tools=[r.tool_name for r in failed],
        )

    async def _call_tool(self, call: ToolCall, reasoning: str | None) -> ToolCallRecord:
        name = call.function.name
        try:
            arguments = parse_arguments(call.function.arguments)
        except ValueError as e:
            self._emit(
                EventType.MCP_TOOL_CALL,
                f"Agent calling tool {name} with arguments that are not valid JSON",
                tool_name=name,
                arguments=call.function.arguments,
                arguments_error=str(e),
            )
            result = error_result(name, f"invalid JSON arguments: {e}")
            return self._reported(call, None, CallOutcome.BAD_ARGUMENTS, result, 0.0, reasoning)
        self._emit(
            EventType.MCP_TOOL_CALL,
            f"Agent calling tool {name}",
            tool_name=name,
            arguments=arguments,
        )
        if name not in self._known:
            result = error_result(name, f"unknown tool; available: {sorted(self._known)}")
            return self._reported(call, arguments, CallOutcome.UNKNOWN_TOOL, result, 0.0, reasoning)
        if not self._breaker.allows(name):
            failures = self._breaker.failures(name)
            reason = f"circuit open after {failures} consecutive failures; not called again"
            result = error_result(name, reason)
            return self._reported(call, arguments, CallOutcome.CIRCUIT_OPEN, result, 0.0, reasoning)
        started = self._clock()
        metadata = {**self._tool_metadata(name), "tool_name": name, "call_id": call.id}
        with self._telemetry.span(tool_span_name(name), input=arguments, metadata=metadata) as span:
            outcome, result = await self._invoke(name, arguments)
            duration = self._clock() - started
            span.update(
                output=result.to_dict(),
                metadata={
                    "is_error": result.is_error,
                    "outcome": outcome.value,
                    "duration_ms": round(duration * 1000, 3),
                },
            )
        opened = self._breaker.record(name, succeeded=outcome is CallOutcome.SUCCEEDED)
        record = self._reported(call, arguments, outcome, result, duration, reasoning, opened)
        if opened:
            self._emit(
                EventType.MCP_CIRCUIT_OPEN,
                f"Tool {name} failed {self._breaker.failures(name)} times in a row: "
                f"not called again",
                Level.WARNING,
                tool_name=name,
            )
        return record

    async def _invoke(
        self, name: str, arguments: dict[str, Any]
    ) -> tuple[CallOutcome, ToolCallResult]:
        assert self._session is not None  # only offered tools reach here
        timeout = self._limits.tool_timeout_seconds
        try:
            result = await self._session.call_tool(name, arguments, timeout)
        except MCPToolTimeoutError:
            return CallOutcome.TIMED_OUT, timeout_result(name, timeout)
        except MCPSessionBrokenError as e:
            return CallOutcome.SESSION_BROKEN, error_result(name, f"the tool server stopped: {e}")
        except Exception as e:  # any other fault of one call is the LLM's to handle (6.2)
            return CallOutcome.TOOL_ERROR, error_result(name, f"{type(e).__name__}: {e}")
        outcome = CallOutcome.TOOL_ERROR if result.is_error else CallOutcome.SUCCEEDED
        return outcome, result.bounded(self._limits.max_result_chars)

    def _skip(self, call: ToolCall, after: BatchStep) -> ToolCallRecord:
        result = skip_result(after)
        name = call.function.name
        self._emit(
            EventType.MCP_TOOL_SKIPPED, f"Skipping {name}: {result.error_message}", tool_name=name
        )
        return ToolCallRecord(
            self._state.iterations, call.id, call.function.name, None, CallOutcome.SKIPPED, result
        )

    def _reported(
        self,
        call: ToolCall,
        arguments: Mapping[str, Any] | None,
        outcome: CallOutcome,
        result: ToolCallResult,
        duration: float,
        reasoning: str | None,
        opened_circuit: bool = False,
    ) -> ToolCallRecord:
        record = ToolCallRecord(
            self._state.iterations,
            call.id,
            call.function.name,
            arguments,
            outcome,
            result,
            duration,
            reasoning,
            opened_circuit,
        )
        self._report(record)
        return record

    def _report(self, record: ToolCallRecord) -> None:
        name, duration_ms = record.tool_name, round(record.duration_seconds * 1000, 3)
        if record.outcome in (CallOutcome.SUCCEEDED, CallOutcome.TOOL_ERROR):
            content = record.result.content
            self._emit(
                EventType.MCP_TOOL_RESULT,
                f"Tool result received from {name} ({record.duration_seconds:.1f}s)",
                tool_name=name,
                result_type=type(content).__name__,
                result_length=len(str(content)),
                is_error=record.result.is_error,
                duration_ms=duration_ms,
                **self._tool_metadata(name),
            )
        if record.outcome is CallOutcome.TIMED_OUT:
            self._emit(
                EventType.MCP_TOOL_TIMEOUT,
                f"Tool call timeout: {name}",
                Level.WARNING,
                tool_name=name,
                timeout_seconds=self._limits.tool_timeout_seconds,
            )
        elif record.outcome is CallOutcome.SESSION_BROKEN:
            self._emit(
                EventType.MCP_SESSION_BROKEN,
                f"Tool server stopped during {name}: no more tool calls this turn",
                Level.WARNING,
                tool_name=name,
                error=record.result.error_message,
            )
        elif record.outcome is not CallOutcome.SUCCEEDED:
            self._emit(
                EventType.MCP_TOOL_ERROR,
                f"Tool call failed: {name}",
                Level.WARNING,
                tool_name=name,
                error=record.result.error_message,
                outcome=record.outcome.value,
            )

    def so_far(self) -> LoopOutcome[None]:
        """What the run did before an error ended it: its chain, iterations, usage, messages."""
        return self._state.outcome(None, ExitReason.FAILED, None)

    def _finish(self, content: str | None, reason: ExitReason) -> LoopOutcome[A]:
        reader = self._policy.answer
        answer = reader.read(content)
        error = reader.parse_error(answer)
        if error:
            self._emit(
                EventType.AGENT_PARSE_ERROR,
                f"Failed to parse agent response: {error}",
                Level.ERROR,
                raw_response=content,
                error=error,
            )
        outcome = self._state.outcome(answer, reason, content)
        if self._tools:
            used = sorted(
                {r.tool_name for r in self._state.chain if r.outcome is not CallOutcome.SKIPPED}
            )
            self._emit(
                EventType.MCP_SESSION_COMPLETE,
                f"MCP session complete ({outcome.iterations} iterations, "
                f"{len(self._state.chain)} tool calls)",
                iterations=outcome.iterations,
                tool_calls_count=len(self._state.chain),
                tools_used=used,
                final_action=reader.final_action(answer),
            )
        return outcome

    def _tool_metadata(self, name: str) -> dict[str, Any]:
        spec = self._known.get(name)
        return {
            "server_name": spec.server if spec else None,
            "timeout_seconds": self._limits.tool_timeout_seconds,
        }

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
