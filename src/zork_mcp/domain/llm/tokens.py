"""The one measure of a request's size, `request_tokens`: what the provider is sent, in
OpenAI's chat form (each tool definition, the response format, each message with its tool
calls and tool results) as JSON (`weighed_json`), at 4 characters a token (OpenAI's rule of
thumb for English text), rounded up once for whatever is measured. No tokenizer's vocabulary
is downloaded.

The budget guard and `--dry-run`'s estimate measure whole requests with it, so they give
the same number for the same request; a part of a request weighs what it adds to one: the
history's remembered turns and the context budget's conversation (`messages_tokens`,
`message_chars`), the offer's budget each tool definition (`definition_json`)."""

from __future__ import annotations

from collections.abc import Sequence

from zork_mcp.domain.llm.messages import LLMRequest, Message, ResponseFormat, to_openai_dict
from zork_mcp.domain.tools.tool_schema import definition_json, weighed_json

CHARS_PER_TOKEN = 4


def tokens_in(chars: int) -> int:
    """Tokens that many characters make (rounded up)."""
    return -(-chars // CHARS_PER_TOKEN)


def request_tokens(request: LLMRequest) -> int:
    """The request's input tokens, measured from what it sends (`request_parts`)."""
    return tokens_in(sum(map(len, request_parts(request))))


def request_parts(request: LLMRequest) -> tuple[str, ...]:
    """What the request sends, as measured, in the order a provider caches a prompt: each
    tool definition, the response format, then each message."""
    tools = tuple(definition_json(tool) for tool in request.tools or ())
    answer = () if request.response_format is None else (_format_json(request.response_format),)
    return (*tools, *answer, *(message_json(m) for m in request.messages))


def messages_tokens(messages: Sequence[Message]) -> int:
    """Messages as a request measures them: a request of these messages alone."""
    return request_tokens(LLMRequest(tuple(messages)))


def message_chars(message: Message) -> int:
    """The characters one message adds to a request's measure."""
    return len(message_json(message))


def message_json(message: Message) -> str:
    """A message as measured: its OpenAI chat form (`to_openai_dict`), tool calls included."""
    return weighed_json(to_openai_dict(message))


def _format_json(response_format: ResponseFormat) -> str:
    return weighed_json({"name": response_format.name, "schema": dict(response_format.schema)})
