"""The tool-calling loop (requirements 1, 4.6, 5, 6.2-6.6): ask, run the tools, ask again, answer.

Tools are offered while iterating and response_format never is; the answer comes either as
content or from a forced final call (no tools) after the loop ran out, the LLM returned
nothing, or the tool server broke. A LoopPolicy says how that final call is asked, how its
content is read as the answer (an AgentResponse for the Zork agent, free text for MCP-Ghost),
and how failures are recovered from (backtracking, circuit breaker). A LoopReport reports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from zork_mcp.domain.errors import MCPSessionBrokenError, MCPToolTimeoutError
from zork_mcp.domain.llm.messages import (
    LLMRequest,
    LLMResponse,
    Message,
    ToolCall,
    ToolChoice,
    assistant_content_message,
    assistant_tool_calls_message,
    tool_message,
    user_message,
)
from zork_mcp.domain.loop.batch_policy import (
    BatchStep,
    CallOutcome,
    error_result,
    next_step,
    parse_arguments,
    skip_result,
    timeout_result,
)
from zork_mcp.domain.loop.context_budget import compact
from zork_mcp.domain.loop.loop_policy import AGENT_POLICY, FAILED_OUTCOMES, LoopLimits, LoopPolicy
from zork_mcp.domain.loop.loop_records import (
    Backtrack,
    ExitReason,
    LoopOutcome,
    LoopState,
    ToolCallRecord,
)
from zork_mcp.domain.loop.loop_report import LoopReport
from zork_mcp.domain.loop.recovery import CircuitBreaker, Failure, backtrack_prompt
from zork_mcp.domain.tools.tool_offer import ToolNotices, choose_offered
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import tool_definitions

if TYPE_CHECKING:  # a port is a Protocol: the domain names it, never needs it at run time
    from zork_mcp.ports.llm import LLM
    from zork_mcp.ports.telemetry import Telemetry
    from zork_mcp.ports.tool_server import ToolSession


A = TypeVar("A")
Clock = Callable[[], float]
Refusal = tuple[CallOutcome, ToolCallResult]


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
        notices: ToolNotices | None = None,
    ) -> None:
        """`notices`: what the episode has said of its tools already (default: nothing)."""
        self._llm, self._session, self._clock = llm, session, clock
        self._limits, self._policy = limits, policy
        offer = choose_offered(session.tools if session else (), limits.offer)
        self._tools = offer.offered
        self._known = {spec.canonical_name: spec for spec in self._tools}
        self._breaker = CircuitBreaker(policy.recovery.breaker_threshold)
        self._state = LoopState()
        self._report = LoopReport(telemetry, turn, limits, self._known, self._state)
        notices = notices if notices is not None else ToolNotices()
        self._report.protocols_spoken(notices.unsaid(session.protocols if session else ()))
        self._report.tools_rejected(notices.unsaid(session.rejected if session else ()))
        self._report.tools_left_out(notices.unsaid(offer.left_out))

    async def run(self, messages: list[Message]) -> LoopOutcome[A]:
        self._state.messages = messages
        content, reason = await self._iterate() if self._tools else (None, ExitReason.NO_TOOLS)
        if reason is not ExitReason.CONTENT:
            content = await self._final_call(reason)
        if content is not None:
            messages.append(assistant_content_message(content))
        return self._finish(content, reason)

    def so_far(self) -> LoopOutcome[None]:
        """What the run did before an error ended it: its chain, iterations, usage, messages."""
        return self._state.outcome(None, ExitReason.FAILED, None)

    async def _iterate(self) -> tuple[str | None, ExitReason]:
        offered = tool_definitions(self._tools)
        for iteration in range(1, self._limits.max_iterations + 1):
            self._state.iterations = iteration
            self._report.iteration_started()
            messages = tuple(self._state.messages)
            request = LLMRequest(messages, tools=offered, tool_choice=ToolChoice.AUTO)
            response = await self._complete(request)
            if not response.tool_calls:
                return self._content_of(response)
            step, records = await self._run_batch(response)
            if step is BatchStep.STOP_TOOLS:
                return None, ExitReason.SESSION_BROKEN
            self._backtrack_after(records)
        return None, ExitReason.MAX_ITERATIONS

    def _content_of(self, response: LLMResponse) -> tuple[str | None, ExitReason]:
        if response.content and response.content.strip():
            return response.content, ExitReason.CONTENT
        self._report.unexpected_state(response)
        return None, ExitReason.UNEXPECTED_STATE

    async def _final_call(self, reason: ExitReason) -> str | None:
        if reason is not ExitReason.NO_TOOLS:
            self._report.left_without_content(reason)
            self._state.messages.append(user_message(self._policy.final_prompt))
        request = LLMRequest(tuple(self._state.messages), response_format=self._policy.final_format)
        return (await self._complete(request)).content

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        request = self._within_budget(request)
        with self._report.generation(self._llm.model, request) as generated:
            started = self._clock()
            response = await self._llm.complete(request)
            seconds = self._clock() - started
            generated(response)
        self._state.count(response, seconds)
        return response

    def _within_budget(self, request: LLMRequest) -> LLMRequest:
        """Over the context budget, send older steps condensed; the history itself stays whole."""
        compaction = compact(request.messages, self._limits.context_budget)
        if compaction is None:
            return request
        self._report.context_compacted(compaction)
        return replace(request, messages=compaction.messages)

    async def _run_batch(self, response: LLMResponse) -> tuple[BatchStep, list[ToolCallRecord]]:
        self._state.messages.append(assistant_tool_calls_message(response))
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
        return step, records

    def _backtrack_after(self, records: list[ToolCallRecord]) -> None:
        failed = [r for r in records if r.outcome in FAILED_OUTCOMES]
        if not failed or len(self._state.backtracks) >= self._policy.recovery.max_backtracks:
            return
        prompt = backtrack_prompt(
            Failure(r.tool_name, r.result.error_message or "failed") for r in failed
        )
        self._state.messages.append(user_message(prompt))
        call_ids = tuple(r.call_id for r in failed)
        self._state.backtracks.append(Backtrack(self._state.iterations, call_ids, prompt))
        self._report.backtracked(failed)

    async def _call_tool(self, call: ToolCall, reasoning: str | None) -> ToolCallRecord:
        name = call.function.name
        try:
            arguments = parse_arguments(call.function.arguments)
        except ValueError as e:
            self._report.arguments_unparsed(call, e)
            result = error_result(name, f"invalid JSON arguments: {e}")
            return self._record(call, None, reasoning, CallOutcome.BAD_ARGUMENTS, result)
        self._report.tool_called(name, arguments)
        refusal = self._refusal(name)
        if refusal is not None:
            return self._record(call, arguments, reasoning, *refusal)
        return await self._call_session(call, arguments, reasoning)

    def _refusal(self, name: str) -> Refusal | None:
        """Why a call is not made: the tool is unknown, or its circuit is open."""
        if name not in self._known:
            known = sorted(self._known)
            return CallOutcome.UNKNOWN_TOOL, error_result(name, f"unknown tool; available: {known}")
        if not self._breaker.allows(name):
            failures = self._breaker.failures(name)
            reason = f"circuit open after {failures} consecutive failures; not called again"
            return CallOutcome.CIRCUIT_OPEN, error_result(name, reason)
        return None

    async def _call_session(
        self, call: ToolCall, arguments: dict[str, Any], reasoning: str | None
    ) -> ToolCallRecord:
        name = call.function.name
        started = self._clock()
        with self._report.tool_span(call, arguments) as ran:
            outcome, result = await self._invoke(name, arguments)
            duration = self._clock() - started
            ran(outcome, result, duration)
        opened = self._breaker.record(name, succeeded=outcome is CallOutcome.SUCCEEDED)
        record = self._record(call, arguments, reasoning, outcome, result, duration, opened)
        if opened:
            self._report.circuit_opened(name, self._breaker.failures(name))
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
        self._report.call_skipped(name, result)
        return ToolCallRecord(
            self._state.iterations, call.id, name, None, CallOutcome.SKIPPED, result
        )

    def _record(
        self,
        call: ToolCall,
        arguments: Mapping[str, Any] | None,
        reasoning: str | None,
        outcome: CallOutcome,
        result: ToolCallResult,
        duration: float = 0.0,
        opened_circuit: bool = False,
    ) -> ToolCallRecord:
        """The record of a call that was asked for (made or refused), reported."""
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
        self._report.call_recorded(record)
        return record

    def _finish(self, content: str | None, reason: ExitReason) -> LoopOutcome[A]:
        reader = self._policy.answer
        answer = reader.read(content)
        error = reader.parse_error(answer)
        if error:
            self._report.answer_unparsed(content, error)
        outcome = self._state.outcome(answer, reason, content)
        if self._tools:
            self._report.session_complete(outcome, reader.final_action(answer))
        return outcome
