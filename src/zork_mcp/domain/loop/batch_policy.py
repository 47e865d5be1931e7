"""What a tool call's outcome means for the rest of its batch (requirements 6.2-6.6).

A failed call leaves an error in history and the batch goes on; a timeout leaves a timeout
message and the rest of the batch is skipped; a broken session ends tool use for the turn.
Every tool_call_id is still answered, so skipped calls get a "skipped" result.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from zork_mcp.domain.tools.tool_result import ToolCallResult


class CallOutcome(Enum):
    SUCCEEDED = "succeeded"
    TOOL_ERROR = "tool_error"
    BAD_ARGUMENTS = "bad_arguments"
    UNKNOWN_TOOL = "unknown_tool"
    TIMED_OUT = "timed_out"
    SESSION_BROKEN = "session_broken"
    SKIPPED = "skipped"
    CIRCUIT_OPEN = "circuit_open"  # not called: the tool kept failing


class BatchStep(Enum):
    NEXT_CALL = "next_call"
    SKIP_REST_OF_BATCH = "skip_rest_of_batch"
    STOP_TOOLS = "stop_tools"


SKIPPED_AFTER_TIMEOUT = "skipped: an earlier call in this batch timed out"
SKIPPED_AFTER_BREAK = "skipped: the tool server stopped earlier in this batch"


def next_step(outcome: CallOutcome) -> BatchStep:
    if outcome is CallOutcome.TIMED_OUT:
        return BatchStep.SKIP_REST_OF_BATCH
    if outcome is CallOutcome.SESSION_BROKEN:
        return BatchStep.STOP_TOOLS
    return BatchStep.NEXT_CALL


def skip_result(after: BatchStep) -> ToolCallResult:
    message = SKIPPED_AFTER_BREAK if after is BatchStep.STOP_TOOLS else SKIPPED_AFTER_TIMEOUT
    return ToolCallResult.failure(message)


def timeout_result(tool_name: str, timeout_seconds: float) -> ToolCallResult:
    return ToolCallResult.failure(f"Tool call {tool_name} timed out after {timeout_seconds:g}s")


def error_result(tool_name: str, reason: str) -> ToolCallResult:
    return ToolCallResult.failure(f"Tool call {tool_name} failed: {reason}")


def parse_arguments(text: str) -> dict[str, Any]:
    """The call's JSON arguments as an object; blank means none (requirement 5.3)."""
    if not text.strip():
        return {}
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value
