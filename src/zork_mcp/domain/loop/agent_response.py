"""The agent's final answer (requirement 15): parsed leniently, always a usable game command."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from zork_mcp.domain.llm.messages import ResponseFormat

FALLBACK_ACTION = "look"
_PROMPT_MARK = re.compile(r"^\s*>\s*")


class AgentResponse(BaseModel):
    """thinking (the justification), action (one game command), optional new_objective."""

    model_config = ConfigDict(extra="ignore")

    thinking: str = ""
    action: str
    new_objective: str | None = None

    @field_validator("action")
    @classmethod
    def _single_line_command(cls, value: str) -> str:
        return normalise_action(value)


def normalise_action(text: str) -> str:
    """The first non-blank line, without a prompt mark, whitespace collapsed; never empty."""
    for line in text.splitlines():
        command = " ".join(_PROMPT_MARK.sub("", line).split())
        if command:
            return command
    raise ValueError("action must be a non-empty game command")


@dataclass(frozen=True)
class ParsedAnswer:
    response: AgentResponse
    error: str | None = None  # why the fallback was used, if it was


def parse_agent_response(text: str | None) -> ParsedAnswer:
    """Accept a JSON object alone, in a code fence, or in prose; else the safe fallback."""
    if not text or not text.strip():
        return _fallback("the LLM returned no final content")
    strict_error = _validate(text)
    if isinstance(strict_error, AgentResponse):
        return ParsedAnswer(strict_error)
    for candidate in _embedded_objects(text):
        found = _validate_object(candidate)
        if found is not None:
            return ParsedAnswer(found)
    return _fallback(f"no AgentResponse JSON object found ({strict_error}); raw: {text[:200]!r}")


class AgentAnswerReader:
    """The agent's answer reader: an AgentResponse, or the fallback with the reason why."""

    def read(self, content: str | None) -> ParsedAnswer:
        return parse_agent_response(content)

    def parse_error(self, answer: ParsedAnswer) -> str | None:
        return answer.error

    def final_action(self, answer: ParsedAnswer) -> str | None:
        return answer.response.action


def final_answer_format() -> ResponseFormat:
    """A strict JSON schema for the forced final call, made from AgentResponse (5.9)."""
    return ResponseFormat(
        name="AgentResponse",
        schema={
            "type": "object",
            "properties": {
                "thinking": {"type": "string", "description": "why this action"},
                "action": {"type": "string", "description": "one game command"},
                "new_objective": {"type": ["string", "null"], "description": "optional plan"},
            },
            "required": ["thinking", "action", "new_objective"],
            "additionalProperties": False,
        },
    )


def _fallback(reason: str) -> ParsedAnswer:
    response = AgentResponse(thinking=f"Parse error: {reason}", action=FALLBACK_ACTION)
    return ParsedAnswer(response, error=reason)


def _validate(text: str) -> AgentResponse | str:
    try:
        return AgentResponse.model_validate_json(text)
    except ValidationError as e:
        return f"{e.error_count()} validation error(s): {e.errors()[0]['msg']}"


def _validate_object(candidate: Any) -> AgentResponse | None:
    if not isinstance(candidate, dict):
        return None
    try:
        return AgentResponse.model_validate(candidate)
    except ValidationError:
        return None


def _embedded_objects(text: str):
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        yield value
