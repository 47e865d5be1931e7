"""MCP-Ghost's result (spec 004, "Output Structure"), built from one run of the tool loop."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict

from zork_mcp.domain.llm.messages import Message, Usage, to_openai_dict
from zork_mcp.domain.loop.batch_policy import BatchStep, CallOutcome, next_step
from zork_mcp.domain.loop.loop_records import ExitReason, LoopOutcome, ToolCallRecord

UNFINISHED = frozenset({ExitReason.MAX_ITERATIONS, ExitReason.SESSION_BROKEN, ExitReason.FAILED})
NOT_RUN = frozenset({CallOutcome.SKIPPED, CallOutcome.CIRCUIT_OPEN})  # asked for, never made
# What the loop does after a failed call follows from the batch policy's step for it.
AFTER_STEP = {
    BatchStep.SKIP_REST_OF_BATCH: "the rest of the batch was skipped; the LLM chose what next",
    BatchStep.STOP_TOOLS: "tool use stopped; the LLM was asked for its final answer",
    BatchStep.NEXT_CALL: "reported to the LLM in the tool result",
}
NOT_MADE = {
    CallOutcome.CIRCUIT_OPEN: "not called: the tool's circuit is open",
    CallOutcome.SKIPPED: "not run: an earlier call ended the batch",
}
BACKTRACKED = "backtracked: the LLM was told what failed and asked for a different approach"
CIRCUIT_OPENED = "circuit opened: the tool is not called again in this run"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class TokenUsage(_Model):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ToolChainEntry(_Model):
    iteration: int
    tool_name: str  # canonical `server.tool`
    arguments: dict[str, Any]
    success: bool
    result: Any
    error: str | None
    execution_time: float
    reasoning: str
    retry_attempt: int


class ConversationMessage(_Model):
    role: str
    content: str | None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None


class GhostError(_Model):
    iteration: int
    tool_name: str | None  # None for an error of the run itself (server, LLM, iterations)
    error: str
    recovery_action: str | None


class ExecutionMetadata(_Model):
    total_execution_time: float
    total_iterations: int
    tools_discovered: int
    servers_connected: int
    backtrack_count: int
    success_rate: float  # percent of the calls that ran and succeeded; 100.0 when none ran
    token_usage: TokenUsage


class GhostResult(_Model):
    success: bool
    final_result: Any
    summary: str
    tool_chain: list[ToolChainEntry]
    conversation_history: list[ConversationMessage]
    errors: list[GhostError]
    execution_metadata: ExecutionMetadata


class GhostAnswerReader:
    """MCP-Ghost's answer: the LLM's final text, stripped ("" when it gave none)."""

    def read(self, content: str | None) -> str:
        return content.strip() if content else ""

    def parse_error(self, answer: str) -> str | None:
        return None

    def final_action(self, answer: str) -> str | None:
        return None


def ghost_result(
    outcome: LoopOutcome[str],
    *,
    tools_discovered: int,
    servers_connected: int,
    elapsed_seconds: float,
    max_iterations: int,
) -> GhostResult:
    """The structured result of a run that reached the LLM's final answer."""
    answer = outcome.answer
    success = bool(answer) and outcome.exit_reason not in UNFINISHED
    chain = tool_chain(outcome.tool_chain)
    errors = _errors(outcome, max_iterations)
    metadata = ExecutionMetadata(
        total_execution_time=round(elapsed_seconds, 6),
        total_iterations=outcome.iterations,
        tools_discovered=tools_discovered,
        servers_connected=servers_connected,
        backtrack_count=len(outcome.backtracks),
        success_rate=success_rate(outcome.tool_chain),
        token_usage=token_usage(outcome.usage),
    )
    return GhostResult(
        success=success,
        final_result=answer or None,
        summary=summarise(success, outcome, metadata, answer),
        tool_chain=chain,
        conversation_history=conversation(outcome.messages),
        errors=errors,
        execution_metadata=metadata,
    )


def failed_run(
    error: str,
    *,
    elapsed_seconds: float,
    servers_connected: int,
    conversation_so_far: list[Message],
    tools_discovered: int = 0,
    partial: LoopOutcome[Any] | None = None,
) -> GhostResult:
    """The result of a run that could not go on: a server did not start, the LLM failed.

    With `partial` (what the loop did before the failure) the tool chain, iterations, usage
    and backtracks of what happened are kept (spec 004, partial-success handling).
    """
    records = partial.tool_chain if partial else ()
    metadata = ExecutionMetadata(
        total_execution_time=round(elapsed_seconds, 6),
        total_iterations=partial.iterations if partial else 0,
        tools_discovered=tools_discovered,
        servers_connected=servers_connected,
        backtrack_count=len(partial.backtracks) if partial else 0,
        success_rate=success_rate(records),
        token_usage=token_usage(partial.usage) if partial else TokenUsage(),
    )
    run_error = GhostError(
        iteration=metadata.total_iterations, tool_name=None, error=error, recovery_action=None
    )
    done = f" after {len(records)} tool call(s) in {metadata.total_iterations} iteration(s)"
    return GhostResult(
        success=False,
        final_result=None,
        summary=f"Failed before an answer{done if records else ''}: {error}",
        tool_chain=tool_chain(records),
        conversation_history=conversation(conversation_so_far),
        errors=[*(_errors(partial, 0) if partial else []), run_error],
        execution_metadata=metadata,
    )


def tool_chain(records: tuple[ToolCallRecord, ...]) -> list[ToolChainEntry]:
    """Every call the LLM asked for, in order; retry_attempt counts the tool's failures in a row."""
    failures_in_a_row: Counter[str] = Counter()
    entries = []
    for record in records:
        result = record.result
        entries.append(
            ToolChainEntry(
                iteration=record.iteration,
                tool_name=record.tool_name,
                arguments=dict(record.arguments or {}),
                success=not result.is_error,
                result=result.to_dict().get("content"),
                error=result.error_message,
                execution_time=round(record.duration_seconds, 6),
                reasoning=record.reasoning or "",
                retry_attempt=failures_in_a_row[record.tool_name],
            )
        )
        if record.outcome is not CallOutcome.SKIPPED:
            failures_in_a_row[record.tool_name] = (
                failures_in_a_row[record.tool_name] + 1 if result.is_error else 0
            )
    return entries


def success_rate(records: tuple[ToolCallRecord, ...]) -> float:
    ran = [r for r in records if r.outcome not in NOT_RUN]
    if not ran:
        return 100.0
    succeeded = sum(r.outcome is CallOutcome.SUCCEEDED for r in ran)
    return round(100.0 * succeeded / len(ran), 2)


def token_usage(usage: Usage) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
    )


def conversation(messages: tuple[Message, ...] | list[Message]) -> list[ConversationMessage]:
    """The history in the result's OpenAI message format (spec 004, "Output Structure")."""
    return [ConversationMessage.model_validate(to_openai_dict(m)) for m in messages]


def recovery_action(record: ToolCallRecord, backtracked: frozenset[str]) -> str:
    if record.call_id in backtracked:
        return BACKTRACKED
    if record.opened_circuit:
        return CIRCUIT_OPENED
    return NOT_MADE.get(record.outcome) or AFTER_STEP[next_step(record.outcome)]


def _errors(outcome: LoopOutcome[Any], max_iterations: int) -> list[GhostError]:
    backtracked = frozenset(i for b in outcome.backtracks for i in b.call_ids)
    errors = [
        GhostError(
            iteration=r.iteration,
            tool_name=r.tool_name,
            error=r.result.error_message or "failed",
            recovery_action=recovery_action(r, backtracked),
        )
        for r in outcome.tool_chain
        if r.result.is_error
    ]
    if outcome.exit_reason is ExitReason.MAX_ITERATIONS:
        errors.append(
            GhostError(
                iteration=outcome.iterations,
                tool_name=None,
                error=f"max_iterations ({max_iterations}) reached with tool calls still coming",
                recovery_action="the LLM was asked for a final answer without tools",
            )
        )
    return errors


def summarise(
    success: bool, outcome: LoopOutcome[str], metadata: ExecutionMetadata, answer: str
) -> str:
    ran = [r for r in outcome.tool_chain if r.outcome not in NOT_RUN]
    failed = sum(r.result.is_error for r in ran)
    tools = len({r.tool_name for r in ran})
    head = "Completed" if success else f"Ended without completing ({outcome.exit_reason.value})"
    text = (
        f"{head} in {outcome.iterations} iteration(s): {len(ran)} tool call(s) to {tools} "
        f"tool(s), {len(ran) - failed} succeeded, {failed} failed, "
        f"{metadata.backtrack_count} backtrack(s)."
    )
    if answer:
        short = answer if len(answer) <= 200 else answer[:197] + "..."
        text += f" Answer: {short}"
    return text


class GhostResultDict(dict[str, Any]):
    """The documented result (spec 004: `-> dict`), with the typed GhostResult kept.

    `result["tool_chain"][0]["tool_name"]` and `json.dumps(result)` work as the spec shows;
    `result.typed` is the GhostResult, whose fields are also readable as attributes
    (`result.execution_metadata.token_usage.total_tokens`).
    """

    def __init__(self, typed: GhostResult) -> None:
        super().__init__(typed.model_dump())
        self.typed = typed

    def __getattr__(self, name: str) -> Any:
        typed = self.__dict__.get("typed")
        if typed is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(typed, name)
