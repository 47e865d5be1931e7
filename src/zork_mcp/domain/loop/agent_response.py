"""The agent's final answer (requirement 15): parsed leniently, always a usable game command.

Read in this order: a JSON object with `action` (alone, in a code fence, or in prose); else
a reply of one short line, which is the command itself, as text-game harnesses read a small
model's answer (`open mailbox`, `> open mailbox`, `Action: open mailbox`, in quotes or
backticks); else nothing could be read, and the safe fallback is played with the reason
why (`ParsedAnswer.error`), which the episode counts as an unreadable reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from zork_mcp.domain.llm.messages import ResponseFormat

FALLBACK_ACTION = "look"
PLAIN_COMMAND_CHARS = 80  # a one-line reply longer than this is prose, not a command
_PROMPT_MARK = re.compile(r"^\s*>\s*")
_LABEL = re.compile(r"^(?:action|command)\s*:\s*", re.IGNORECASE)
_QUOTES = ("`", '"', "'")


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
    error: str | None = None  # why the fallback was used, if it was (an unreadable reply)
    plain: bool = False  # read as a plain one-line command, not JSON


def parse_agent_response(text: str | None) -> ParsedAnswer:
    """Accept a JSON object alone, in a code fence, or in prose; else the safe fallback."""
    if not text or not text.strip():
        return _fallback("the reply was empty")
    strict_error = _validate(text)
    if isinstance(strict_error, AgentResponse):
        return ParsedAnswer(strict_error)
    for candidate in _embedded_objects(text):
        found = _validate_object(candidate)
        if found is not None:
            return ParsedAnswer(found)
    command = plain_command(text)
    if command is not None:
        return ParsedAnswer(AgentResponse(action=command), plain=True)
    why = f" ({strict_error})" if "{" in text else ""
    return _fallback(f"neither a JSON answer nor one short line{why}: {text[:200]!r}")


def plain_command(text: str) -> str | None:
    """A reply of one non-blank line of at most PLAIN_COMMAND_CHARS, holding no JSON brace,
    as the command it says (its prompt mark, `Action:` label and enclosing quotes or
    backticks taken off); None for anything else."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 1 or "{" in lines[0] or "}" in lines[0]:
        return None
    command, before = lines[0].strip(), ""
    while command != before:  # `> Action: "north"`: each wrapping off, in any order
        before = command
        command = _LABEL.sub("", _PROMPT_MARK.sub("", command)).strip()
        if len(command) >= 2 and command[0] == command[-1] and command[0] in _QUOTES:
            command = command[1:-1].strip()
    command = " ".join(command.split())
    if not command or len(command) > PLAIN_COMMAND_CHARS:
        return None
    return command


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
