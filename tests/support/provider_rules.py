"""The request rules each provider's real API enforces, as data the provider peers read.

Each rule names the provider (the wire protocol: "openai" covers OpenAI, OpenRouter and local
OpenAI-compatible servers), what it demands, the HTTP status and error message the real API
answers when it is broken (`{}` fields are filled in by the peer), and where that is
documented (the provider's docs, or a public issue quoting the error). The peers in
llm_peers.py raise `RULES[id].violated(...)`; tests/contract/test_provider_rules.py shows
each rule rejecting a violating request, and fails for a rule it has no violation for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rule:
    id: str
    provider: str
    what: str
    status: int
    error: str
    source: str

    def violated(self, **details: Any) -> Rejected:
        return Rejected(self.status, self.error.format(**details), self.id)


class Rejected(Exception):
    def __init__(self, status: int, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status, self.rule = status, rule


OPENAI_ERRORS = "https://platform.openai.com/docs/guides/error-codes"
OPENAI_CHAT = "https://platform.openai.com/docs/api-reference/chat/create"
OPENAI_FUNCTIONS = "https://platform.openai.com/docs/guides/function-calling"
OPENAI_STRUCTURED = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
OPENROUTER_CACHING = "https://openrouter.ai/docs/features/prompt-caching"
ANTHROPIC_MESSAGES = "https://docs.anthropic.com/en/api/messages"
ANTHROPIC_ERRORS = "https://docs.anthropic.com/en/api/errors"
ANTHROPIC_TOOLS = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
ANTHROPIC_CACHING = "https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching"
ANTHROPIC_VERSIONS = "https://docs.anthropic.com/en/api/versioning"
OPENAI_RESPONSES = "https://platform.openai.com/docs/api-reference/responses/create"
OPENAI_MIGRATE = "https://developers.openai.com/api/docs/guides/migrate-to-responses"
OPENAI_REASONING = "https://developers.openai.com/api/docs/guides/reasoning"
GEMINI_FUNCTIONS = "https://ai.google.dev/gemini-api/docs/function-calling"
GEMINI_SCHEMA = "https://ai.google.dev/api/caching#Schema"
GEMINI_CONTENT = "https://ai.google.dev/api/caching#Content"
GEMINI_KEYS = "https://ai.google.dev/gemini-api/docs/troubleshooting"
GEMINI_SIGNATURES = "https://ai.google.dev/gemini-api/docs/thought-signatures"

_RULES = (
    # ---- OpenAI chat completions (OpenAI, OpenRouter, local servers) -----------------------
    Rule(
        "openai.api_key",
        "openai",
        "Authorization: Bearer <key> must carry a valid key",
        401,
        "Incorrect API key provided",
        OPENAI_ERRORS,
    ),
    Rule(
        "openai.required_fields",
        "openai",
        "model (a string) and a non-empty messages array are required",
        400,
        "Missing required parameter: '{field}'.",
        OPENAI_CHAT,
    ),
    Rule(
        "openai.message_role",
        "openai",
        "each message's role is system, developer, user, assistant or tool",
        400,
        "Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', "
        "'function', 'tool', and 'developer'.",
        OPENAI_CHAT,
    ),
    Rule(
        "openai.message_content",
        "openai",
        "system and user messages carry content (a string or an array of parts); an "
        "assistant message carries content or tool_calls",
        400,
        "Invalid type for 'messages[{index}].content': expected one of a string or array "
        "of objects, but got {got} instead.",
        OPENAI_CHAT,
    ),
    Rule(
        "openai.tool_name",
        "openai",
        "function names match ^[a-zA-Z0-9_-]{{1,64}}$ (tools and history)",
        400,
        "Invalid '{where}': string does not match pattern. Expected a string that matches "
        "the pattern '^[a-zA-Z0-9_-]+$'.",
        OPENAI_FUNCTIONS,
    ),
    Rule(
        "openai.tools_count",
        "openai",
        "at most 128 tools in one request ('A max of 128 functions are supported')",
        400,
        "Invalid 'tools': array too long. Expected an array with maximum length 128, but got "
        "an array with length {count} instead.",
        # The reference's words (openai/openai-openapi openapi.yaml, 2025-04); the error text
        # as the live API gives it: github.com/vishalmysore/Tools4AI/issues/16, and with
        # gpt-5-mini in 2025-08: github.com/musistudio/claude-code-router/issues/686.
        OPENAI_CHAT,
    ),
    Rule(
        "openai.tool_description",
        "openai",
        "a function's description has at most 1024 characters",
        400,
        "Invalid '{where}': string too long. Expected a string with maximum length 1024, but "
        "got a string with length {length} instead.",
        # Undocumented but enforced (string_above_max_length), quoted in
        # github.com/getsentry/sentry-mcp/issues/106 and OpenHands/OpenHands/issues/4838.
        "https://github.com/getsentry/sentry-mcp/issues/106",
    ),
    Rule(
        "openai.tool_choice_needs_tools",
        "openai",
        "tool_choice is only allowed when tools are given",
        400,
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
        "specified.",
        "https://community.openai.com/t/tool-choice-is-only-allowed-when-tools-are-specified/"
        "672421",
    ),
    Rule(
        "openai.tools_without_reasoning",
        "openai",
        "GPT-5.4 and later models take function tools in chat completions only with "
        "reasoning_effort 'none'",
        400,
        "Function tools with reasoning_effort are not supported for {model} in "
        "/v1/chat/completions. To use function tools, use /v1/responses or set "
        "reasoning_effort to 'none'.",
        "https://community.openai.com/t/gpt-5-6-chat-completion-reasoning-effort-bug-behavior-"
        "change/1386454",
    ),
    Rule(
        "openai.effort_none_unsupported",
        "openai",
        "GPT-6 Astra, GPT-6.1 and later reject reasoning_effort 'none', so chat completions "
        "take no tools for them",
        400,
        "Unsupported value: 'none' is not supported with the '{model}' model. Supported "
        "values are: 'low', 'medium', 'high', 'xhigh', and 'max'.",
        "https://developers.openai.com/api/docs/models/gpt-6-astra (and a live probe quoting "
        "this error, 2026-09-24)",
    ),
    Rule(
        "openai.responses_only_model",
        "openai",
        "codex and pro models are served by the Responses API only",
        400,
        "This model is only supported in v1/responses and not in v1/chat/completions.",
        "https://github.com/alvinunreal/tmuxai/issues/82",
    ),
    Rule(
        "openai.tool_call_id",
        "openai",
        "every tool call in the history has a non-empty id, unique in the conversation",
        400,
        "Invalid 'messages[{index}].tool_calls[{call}].id': {problem}.",
        OPENAI_CHAT,
    ),
    Rule(
        "openai.tool_call_fields",
        "openai",
        "a history tool call has only id, type and function{{name, arguments}}; arguments "
        "is a string",
        400,
        "Additional properties are not allowed ('{field}' was unexpected) - "
        "'messages.{index}.tool_calls.{call}'",
        "https://github.com/openai/openai-node/issues/1161",
    ),
    Rule(
        "openai.tool_calls_answered",
        "openai",
        "an assistant message with tool_calls is followed by a tool message for each id",
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages "
        "responding to each 'tool_call_id'. The following tool_call_ids did not have "
        "response messages: {ids}",
        "https://github.com/openai/openai-python/issues/1556",
    ),
    Rule(
        "openai.tool_message_follows_call",
        "openai",
        "a tool message answers a tool call of the assistant message before it",
        400,
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
        "https://community.openai.com/t/error-messages-with-role-tool-must-be-a-response-to-"
        "a-preceeding-message-with-tool-calls/577564",
    ),
    Rule(
        "openai.response_format",
        "openai",
        "response_format is a json_schema with a valid name and an object schema",
        400,
        "Invalid 'response_format': {problem}",
        OPENAI_STRUCTURED,
    ),
    Rule(
        "openai.strict_schema",
        "openai",
        "a strict schema sets additionalProperties: false and lists every property in "
        "required, on every object",
        400,
        "Invalid schema for response_format: In context={where}, {problem}",
        OPENAI_STRUCTURED,
    ),
    Rule(
        "openai.cache_breakpoints",
        "openai",
        "at most 4 content parts carry cache_control (OpenRouter passes them to Anthropic)",
        400,
        "A maximum of 4 blocks with cache_control may be provided. Found {found}.",
        OPENROUTER_CACHING,
    ),
    # ---- OpenAI Responses ------------------------------------------------------------------
    Rule(
        "responses.api_key",
        "openai-responses",
        "Authorization: Bearer <key> must carry a valid key",
        401,
        "Incorrect API key provided",
        OPENAI_ERRORS,
    ),
    Rule(
        "responses.required_fields",
        "openai-responses",
        "model (a string) and input are required",
        400,
        "Missing required parameter: '{field}'.",
        OPENAI_RESPONSES,
    ),
    Rule(
        "responses.unknown_parameter",
        "openai-responses",
        "only the Responses API's own fields: no messages, max_tokens, max_completion_tokens "
        "or n of chat completions, and no unknown field in an input item",
        400,
        "Unknown parameter: '{field}'.",
        OPENAI_MIGRATE + " (errors quoted in openai-agents and codex issues)",
    ),
    Rule(
        "responses.moved_parameter",
        "openai-responses",
        "response_format is text.format and reasoning_effort is reasoning.effort",
        400,
        "Unsupported parameter: '{field}'. In the Responses API, this parameter has moved "
        "to '{moved}'.",
        OPENAI_MIGRATE,
    ),
    Rule(
        "responses.tool_shape",
        "openai-responses",
        "a function tool is flat: type, name, parameters (not nested under `function`)",
        400,
        "Missing required parameter: 'tools[{index}].name'.",
        OPENAI_FUNCTIONS,
    ),
    Rule(
        "responses.tool_name",
        "openai-responses",
        "function names match ^[a-zA-Z0-9_-]{{1,64}}$ (tools and input items)",
        400,
        "Invalid '{where}': string does not match pattern. Expected a string that matches "
        "the pattern '^[a-zA-Z0-9_-]+$'.",
        OPENAI_FUNCTIONS,
    ),
    Rule(
        "responses.input_role",
        "openai-responses",
        "a message item's role is user, assistant, system or developer (no `tool` role)",
        400,
        "Invalid value: '{role}'. Supported values are: 'assistant', 'system', 'developer', "
        "and 'user'.",
        OPENAI_RESPONSES,
    ),
    Rule(
        "responses.content_type",
        "openai-responses",
        "an assistant message's parts are output_text or refusal; others' are input parts",
        400,
        "Invalid value: '{kind}'. Supported values are: {supported}.",
        "https://github.com/jeremychone/rust-genai/pull/119",
    ),
    Rule(
        "responses.call_output_matches",
        "openai-responses",
        "a function_call_output answers a function_call earlier in input, by call_id",
        400,
        "No tool call found for function call output with call_id {id}.",
        "https://github.com/continuedev/continue/issues/10092",
    ),
    Rule(
        "responses.call_answered",
        "openai-responses",
        "every function_call in input has its function_call_output",
        400,
        "No tool output found for function call {id}.",
        "https://github.com/openai/openai-agents-python/issues/1061",
    ),
    Rule(
        "responses.reasoning_before_call",
        "openai-responses",
        "a function_call sent back with its item id comes with the reasoning item before it",
        400,
        "Item '{id}' of type 'function_call' was provided without its required 'reasoning' "
        "item: '{reasoning}'.",
        "https://github.com/VRSEN/agency-swarm/issues/367",
    ),
    Rule(
        "responses.reasoning_followed",
        "openai-responses",
        "a reasoning item is followed by the item that came after it",
        400,
        "Item '{id}' of type 'reasoning' was provided without its required following item.",
        "https://github.com/openai/openai-agents-python/issues/1611",
    ),
    Rule(
        "responses.reasoning_not_stored",
        "openai-responses",
        "with store false a reasoning item is sent back with its encrypted_content, not by id",
        404,
        "Item with id '{id}' not found. Items are not persisted when `store` is set to "
        "false. Try again with `store` set to true, or remove this item from your input.",
        OPENAI_REASONING + " (error quoted in anomalyco/opencode#7724)",
    ),
    Rule(
        "responses.encrypted_content",
        "openai-responses",
        "encrypted reasoning goes back exactly as it came",
        400,
        "The encrypted content {content} could not be verified.",
        "https://github.com/openai/codex/issues/8145",
    ),
    Rule(
        "responses.previous_response",
        "openai-responses",
        "previous_response_id names a stored response (nothing is stored with store false)",
        400,
        "Previous response with id '{id}' not found.",
        OPENAI_RESPONSES,
    ),
    Rule(
        "responses.text_format",
        "openai-responses",
        "text.format is text, or a json_schema with a valid name and an object schema "
        "(flat: no json_schema wrapper)",
        400,
        "Invalid 'text.format': {problem}",
        OPENAI_RESPONSES,
    ),
    Rule(
        "responses.strict_schema",
        "openai-responses",
        "a strict schema sets additionalProperties: false and lists every property in "
        "required, on every object",
        400,
        "Invalid schema for response_format '{name}': In context={where}, {problem}",
        OPENAI_STRUCTURED,
    ),
    # ---- Anthropic messages ---------------------------------------------------------------
    Rule(
        "anthropic.api_key",
        "anthropic",
        "x-api-key carries a valid key",
        401,
        "invalid x-api-key",
        ANTHROPIC_ERRORS,
    ),
    Rule(
        "anthropic.version_header",
        "anthropic",
        "the anthropic-version header is required",
        400,
        "anthropic-version: header is required",
        ANTHROPIC_VERSIONS,
    ),
    Rule(
        "anthropic.required_fields",
        "anthropic",
        "model, max_tokens (>= 1) and messages are required",
        400,
        "{field}: Field required",
        ANTHROPIC_MESSAGES,
    ),
    Rule(
        "anthropic.message_role",
        "anthropic",
        "message roles are user or assistant; system text goes in the top-level system",
        400,
        "messages.{index}.role: Input should be 'user' or 'assistant' (got \"{role}\")",
        ANTHROPIC_MESSAGES,
    ),
    Rule(
        "anthropic.non_empty_content",
        "anthropic",
        "every message has content",
        400,
        "messages.{index}: all messages must have non-empty content except for the optional "
        "final assistant message",
        "https://github.com/anthropics/anthropic-sdk-python/issues/461",
    ),
    Rule(
        "anthropic.empty_text",
        "anthropic",
        "no text block (system or messages) is empty",
        400,
        "{where}: text content blocks must be non-empty",
        "https://github.com/anthropics/claude-code/issues/59812",
    ),
    Rule(
        "anthropic.whitespace_text",
        "anthropic",
        "a message whose text blocks are all whitespace is refused (a model's '\\n' beside "
        "its tool calls, sent back)",
        400,
        "messages: text content blocks must contain non-whitespace text",
        "https://github.com/LibreChat-AI/agents/pull/124",
    ),
    Rule(
        "anthropic.tool_result_follows_use",
        "anthropic",
        "each tool_use block has a tool_result in the very next (user) message",
        400,
        "messages.{index}: `tool_use` ids were found without `tool_result` blocks "
        "immediately after: {ids}. Each `tool_use` block must have a corresponding "
        "`tool_result` block in the next message.",
        "https://github.com/anthropics/claude-code/issues/3512",
    ),
    Rule(
        "anthropic.tool_result_answers_use",
        "anthropic",
        "each tool_result answers a tool_use of the previous (assistant) message",
        400,
        "messages.{index}.content.{block}: unexpected `tool_use_id` found in `tool_result` "
        "blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block "
        "in the previous message.",
        ANTHROPIC_TOOLS,
    ),
    Rule(
        "anthropic.tool_results_first",
        "anthropic",
        "a message after tool_use blocks begins with its tool_result blocks",
        400,
        "messages.{index}: Did not find {count} tool_result block(s) at the beginning of "
        "this message. Messages following tool_use blocks must begin with a matching number "
        "of tool_result blocks.",
        "https://github.com/anthropics/anthropic-sdk-typescript/issues/653",
    ),
    Rule(
        "anthropic.tool_use_id_unique",
        "anthropic",
        "tool_use ids are unique in the conversation",
        400,
        "messages.{index}.content.{block}: `tool_use` ids must be unique",
        ANTHROPIC_TOOLS,
    ),
    Rule(
        "anthropic.tools_for_tool_blocks",
        "anthropic",
        "a request whose messages hold tool_use or tool_result blocks defines tools",
        400,
        "Requests which include `tool_use` or `tool_result` blocks must define tools.",
        "https://github.com/anthropics/anthropic-sdk-python/issues/494",
    ),
    Rule(
        "anthropic.tool_definition",
        "anthropic",
        "tool names match ^[a-zA-Z0-9_-]{{1,128}}$ and input_schema is an object schema",
        400,
        "tools.{index}.custom.{field}: {problem}",
        "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/define-tools",
    ),
    Rule(
        "anthropic.tool_choice",
        "anthropic",
        "tool_choice is auto, any, none or tool; `tool` names a defined tool; any/tool need tools",
        400,
        "tool_choice: {problem}",
        ANTHROPIC_MESSAGES,
    ),
    Rule(
        "anthropic.cache_breakpoints",
        "anthropic",
        "at most 4 blocks (tools, system and messages together) carry cache_control",
        400,
        "A maximum of 4 blocks with cache_control may be provided. Found {found}.",
        ANTHROPIC_CACHING,
    ),
    # ---- Gemini generateContent -----------------------------------------------------------
    Rule(
        "gemini.api_key",
        "gemini",
        "x-goog-api-key carries a valid key",
        400,
        "API key not valid. Please pass a valid API key.",
        GEMINI_KEYS,
    ),
    Rule(
        "gemini.content_role",
        "gemini",
        "each content has role user or model and at least one part",
        400,
        "Please use a valid role: user, model. (contents[{index}])",
        GEMINI_CONTENT,
    ),
    Rule(
        "gemini.empty_text",
        "gemini",
        "no text part (in contents or systemInstruction) is empty",
        400,
        "Unable to submit request because it has an empty text parameter. Add a value to the "
        "parameter and try again.",
        "https://github.com/google-gemini/deprecated-generative-ai-python/issues/697",
    ),
    Rule(
        "gemini.call_turn_order",
        "gemini",
        "a function call turn comes right after a user turn or a function response turn",
        400,
        "Please ensure that function call turn comes immediately after a user turn or after "
        "a function response turn.",
        "https://github.com/google-gemini/generative-ai-python/issues/516",
    ),
    Rule(
        "gemini.response_count",
        "gemini",
        "a function response turn answers every function call of the call turn before it",
        400,
        "Please ensure that the number of function response parts is equal to the number of "
        "function call parts of the function call turn.",
        "https://github.com/google-gemini/generative-ai-js/issues/167",
    ),
    Rule(
        "gemini.response_matches_call",
        "gemini",
        "each functionResponse carries the id and name of a functionCall of the turn before",
        400,
        "Function response {name} (id {id}) does not match any function call of the previous turn.",
        GEMINI_FUNCTIONS,
    ),
    Rule(
        "gemini.function_name",
        "gemini",
        "function names start with a letter or underscore, then a-z, A-Z, 0-9, _ . : -, at most 64",
        400,
        "* GenerateContentRequest.{where}: Invalid function name. Must start with a letter "
        "or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and "
        "dashes, with a maximum length of 64.",
        GEMINI_FUNCTIONS,
    ),
    Rule(
        "gemini.schema_keywords",
        "gemini",
        "schemas use only the OpenAPI subset (no $schema, additionalProperties, $ref, const, "
        "title, default, ...)",
        400,
        "Invalid JSON payload received. Unknown name \"{key}\" at '{where}': Cannot find field.",
        GEMINI_SCHEMA,
    ),
    Rule(
        "gemini.schema_type",
        "gemini",
        "a schema's type is one type name, not a list",
        400,
        "Invalid value at '{where}.type': a list is not a Type",
        GEMINI_SCHEMA,
    ),
    Rule(
        "gemini.object_properties",
        "gemini",
        "an OBJECT schema given `properties` has at least one (leave parameters out instead)",
        400,
        "* GenerateContentRequest.{where}.properties: should be non-empty for OBJECT type",
        "https://github.com/google-gemini/generative-ai-js/issues/198",
    ),
    Rule(
        "gemini.thought_signature",
        "gemini",
        "a functionCall part that came with a thoughtSignature is sent back with it",
        400,
        "Function call `{name}` in the `{index}.` content block is missing a `thought_signature`.",
        GEMINI_SIGNATURES,
    ),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}


def rules_of(provider: str) -> list[Rule]:
    return [rule for rule in _RULES if rule.provider == provider]
