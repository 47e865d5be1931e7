"""How the provider peers enforce the rules of provider_rules.py on a request body.

One `check_<provider>` function per wire protocol; each raises the violated rule's Rejected
(the provider's own status and message) at the first broken rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from tests.support.provider_rules import RULES, Rule

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
OPENAI_MAX_TOOLS = 128
OPENAI_MAX_DESCRIPTION = 1024
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
GEMINI_REJECTS = frozenset(
    {
        "$schema",
        "additionalProperties",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "propertyNames",
        "uniqueItems",
        "$ref",
        "$defs",
        "const",
        "title",
        "default",
    }
)
# OpenAI's model families as OpenAI documents them (not OpenRouter's slugs); the peer's own
# reading of OpenAI's pages, kept apart from the provider registry it checks.
REASONING_MODELS = re.compile(r"^gpt-(5\.[4-9]|[6-9])")  # tools in chat only at effort none
NO_NONE_EFFORT = re.compile(r"^gpt-(6-astra|6\.[1-9]|[7-9])")  # gpt-6-astra, gpt-6.1-sol pages
RESPONSES_ONLY = re.compile(r"^(gpt-[0-9.]+-(codex|pro)\b|o[13]-pro\b)")
OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool")
OPENAI_CALL_FIELDS = frozenset({"id", "type", "function"})
MAX_CACHE_BREAKPOINTS = 4


def _name_ok(pattern: re.Pattern[str], name: Any) -> bool:
    return isinstance(name, str) and bool(pattern.match(name))


# ---- OpenAI chat completions ------------------------------------------------------------


def check_openai(headers: Mapping[str, str], body: Mapping[str, Any], api_key: str | None) -> None:
    if api_key and headers.get("authorization") != f"Bearer {api_key}":
        raise RULES["openai.api_key"].violated()
    for field, ok in (
        ("model", isinstance(body.get("model"), str)),
        ("messages", body.get("messages")),
    ):
        if not ok:
            raise RULES["openai.required_fields"].violated(field=field)
    if RESPONSES_ONLY.match(body["model"]):
        raise RULES["openai.responses_only_model"].violated()
    if body.get("reasoning_effort") == "none" and NO_NONE_EFFORT.match(body["model"]):
        raise RULES["openai.effort_none_unsupported"].violated(model=body["model"])
    tools = body.get("tools") or []
    if len(tools) > OPENAI_MAX_TOOLS:
        raise RULES["openai.tools_count"].violated(count=len(tools))
    for index, tool in enumerate(tools):
        function = tool.get("function") or {}
        if not _name_ok(OPENAI_NAME, function.get("name")):
            raise RULES["openai.tool_name"].violated(where=f"tools[{index}].function.name")
        if len(function.get("description") or "") > OPENAI_MAX_DESCRIPTION:
            where = f"tools[{index}].function.description"
            length = len(function["description"])
            raise RULES["openai.tool_description"].violated(where=where, length=length)
    if "tool_choice" in body and not tools:
        raise RULES["openai.tool_choice_needs_tools"].violated()
    if tools and REASONING_MODELS.match(body["model"]) and body.get("reasoning_effort") != "none":
        raise RULES["openai.tools_without_reasoning"].violated(model=body["model"])
    _openai_history(body["messages"])
    _openai_cache_breakpoints(body["messages"])
    if "response_format" in body:
        _openai_response_format(body["response_format"])


def _openai_history(messages: list[dict[str, Any]]) -> None:
    pending: list[str] = []
    seen: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in OPENAI_ROLES:
            raise RULES["openai.message_role"].violated(role=role)
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                raise RULES["openai.tool_message_follows_call"].violated()
            pending.remove(message["tool_call_id"])
            continue
        if pending:
            raise RULES["openai.tool_calls_answered"].violated(ids=pending)
        _openai_content(index, message)
        for number, call in enumerate(message.get("tool_calls") or []):
            _openai_call(index, number, call, seen)
            pending.append(call["id"])
            seen.add(call["id"])
    if pending:
        raise RULES["openai.tool_calls_answered"].violated(ids=pending)


def _openai_content(index: int, message: Mapping[str, Any]) -> None:
    content = message.get("content")
    needs_content = message["role"] != "assistant" or not message.get("tool_calls")
    if needs_content and not isinstance(content, str | list):
        got = "null" if content is None else type(content).__name__
        raise RULES["openai.message_content"].violated(index=index, got=got)


def _openai_call(index: int, number: int, call: Mapping[str, Any], seen: set[str]) -> None:
    extra = set(call) - OPENAI_CALL_FIELDS
    function = call.get("function") or {}
    extra |= set(function) - {"name", "arguments"}
    if extra:
        raise RULES["openai.tool_call_fields"].violated(
            field=sorted(extra)[0], index=index, call=number
        )
    if not isinstance(function.get("arguments"), str):
        raise RULES["openai.tool_call_fields"].violated(field="arguments", index=index, call=number)
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        problem = "string too short. Expected a string with minimum length 1"
        raise RULES["openai.tool_call_id"].violated(index=index, call=number, problem=problem)
    if call_id in seen:
        problem = f"duplicate tool call id '{call_id}'"
        raise RULES["openai.tool_call_id"].violated(index=index, call=number, problem=problem)
    if not _name_ok(OPENAI_NAME, function.get("name")):
        where = f"messages[{index}].tool_calls[{number}].function.name"
        raise RULES["openai.tool_name"].violated(where=where)


def _openai_cache_breakpoints(messages: list[dict[str, Any]]) -> None:
    found = sum(
        1
        for message in messages
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if isinstance(part, dict) and "cache_control" in part
    )
    found += sum(1 for message in messages if "cache_control" in message)
    if found > MAX_CACHE_BREAKPOINTS:
        raise RULES["openai.cache_breakpoints"].violated(found=found)


def _openai_response_format(response_format: Mapping[str, Any]) -> None:
    rule = RULES["openai.response_format"]
    if response_format.get("type") != "json_schema":
        raise rule.violated(problem="type must be 'json_schema' for a schema")
    spec = response_format.get("json_schema") or {}
    _json_schema(spec, rule, RULES["openai.strict_schema"], where="json_schema.")


def _json_schema(spec: Mapping[str, Any], rule: Rule, strict: Rule, *, where: str) -> None:
    """A named JSON schema format (chat's `response_format.json_schema`, Responses'
    `text.format`): a valid name, an object schema, and strict mode's demands."""
    if not _name_ok(OPENAI_NAME, spec.get("name")):
        raise rule.violated(problem=f"{where}name must match '^[a-zA-Z0-9_-]+$'")
    schema = spec.get("schema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise rule.violated(problem=f"{where}schema must be an object schema")
    if spec.get("strict"):
        _strict(schema, "()", strict, name=spec["name"])


def _strict(node: Mapping[str, Any], where: str, rule: Rule, **names: str) -> None:
    if node.get("type") == "object" or "properties" in node:
        properties = node.get("properties") or {}
        if node.get("additionalProperties") is not False:
            problem = "'additionalProperties' is required to be supplied and to be false"
            raise rule.violated(where=where, problem=problem, **names)
        if sorted(node.get("required") or []) != sorted(properties):
            problem = "'required' is required to be supplied and to be an array including every key"
            raise rule.violated(where=where, problem=problem, **names)
        for name, sub in properties.items():
            _strict(sub, f"{where}.properties.{name}", rule, **names)


# ---- OpenAI Responses -------------------------------------------------------------------

RESPONSES_FIELDS = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "store",
        "include",
        "reasoning",
        "text",
        "max_output_tokens",
        "temperature",
        "top_p",
        "previous_response_id",
        "truncation",
        "metadata",
        "user",
        "stream",
        "service_tier",
        "safety_identifier",
        "prompt_cache_key",
        "background",
        "max_tool_calls",
    }
)  # openai-python 3.3.1 ResponseCreateParams, the fields this peer knows
MOVED = {"response_format": "text.format", "reasoning_effort": "reasoning.effort"}
ITEM_FIELDS = {
    "message": frozenset({"type", "role", "content", "id", "status", "phase"}),
    "function_call": frozenset({"type", "call_id", "name", "arguments", "id", "status"}),
    "function_call_output": frozenset({"type", "call_id", "output", "id", "status"}),
    "reasoning": frozenset({"type", "id", "summary", "content", "encrypted_content", "status"}),
}
INPUT_ROLES = ("user", "assistant", "system", "developer")


@dataclass
class Issued:
    """What a Responses peer handed out: each call's item id -> its reasoning item's id, and
    each reasoning item's encrypted content."""

    reasoning_of_call: dict[str, str] = dataclass_field(default_factory=dict)
    encrypted: dict[str, str] = dataclass_field(default_factory=dict)


def check_responses(
    headers: Mapping[str, str], body: Mapping[str, Any], api_key: str | None, issued: Issued
) -> None:
    if api_key and headers.get("authorization") != f"Bearer {api_key}":
        raise RULES["responses.api_key"].violated()
    _responses_fields(body)
    if body.get("previous_response_id"):
        raise RULES["responses.previous_response"].violated(id=body["previous_response_id"])
    _responses_tools(body.get("tools") or [])
    if "text" in body:
        _responses_text(body["text"])
    items = body["input"] if isinstance(body["input"], list) else []
    for index, item in enumerate(items):
        _responses_item(index, item)
    _responses_calls(items)
    _responses_reasoning(items, issued, store=body.get("store", True))


def _responses_fields(body: Mapping[str, Any]) -> None:
    for key in body:
        if key in MOVED:
            raise RULES["responses.moved_parameter"].violated(field=key, moved=MOVED[key])
        if key not in RESPONSES_FIELDS:
            raise RULES["responses.unknown_parameter"].violated(field=key)
    for field_name, ok in (
        ("model", isinstance(body.get("model"), str)),
        ("input", isinstance(body.get("input"), str | list)),
    ):
        if not ok:
            raise RULES["responses.required_fields"].violated(field=field_name)


def _responses_tools(tools: list[dict[str, Any]]) -> None:
    for index, tool in enumerate(tools):
        if tool.get("type") == "function" and "name" not in tool:
            raise RULES["responses.tool_shape"].violated(index=index)
        if not _name_ok(OPENAI_NAME, tool.get("name")):
            raise RULES["responses.tool_name"].violated(where=f"tools[{index}].name")


def _responses_text(text: Mapping[str, Any]) -> None:
    rule = RULES["responses.text_format"]
    spec = text.get("format") or {"type": "text"}
    if spec.get("type") == "text":
        return
    if spec.get("type") != "json_schema" or "json_schema" in spec:
        raise rule.violated(problem="expected type 'text' or a flat 'json_schema' format")
    _json_schema(spec, rule, RULES["responses.strict_schema"], where="")


def _responses_item(index: int, item: Mapping[str, Any]) -> None:
    kind = item.get("type", "message")
    extra = set(item) - ITEM_FIELDS.get(kind, frozenset(item))
    if extra:
        raise RULES["responses.unknown_parameter"].violated(field=f"input[{index}].{min(extra)}")
    if kind == "function_call" and not _name_ok(OPENAI_NAME, item.get("name")):
        raise RULES["responses.tool_name"].violated(where=f"input[{index}].name")
    if kind != "message":
        return
    role = item.get("role")
    if role not in INPUT_ROLES:
        raise RULES["responses.input_role"].violated(role=role)
    parts = item.get("content") if isinstance(item.get("content"), list) else []
    allowed = ("output_text", "refusal") if role == "assistant" else ("input_text",)
    for number, part in enumerate(parts):
        if part.get("type") not in allowed:
            supported = " and ".join(f"'{kind}'" for kind in allowed)
            rule = RULES["responses.content_type"]
            raise rule.violated(kind=part.get("type"), supported=supported)
        extra = set(part) - {"type", "text", "annotations", "logprobs"}
        if extra:
            where = f"input[{index}].content[{number}].{min(extra)}"
            raise RULES["responses.unknown_parameter"].violated(field=where)


def _responses_calls(items: list[dict[str, Any]]) -> None:
    called: list[str] = []
    for item in items:
        if item.get("type") == "function_call":
            called.append(item.get("call_id"))
        elif item.get("type") == "function_call_output" and item.get("call_id") not in called:
            raise RULES["responses.call_output_matches"].violated(id=item.get("call_id"))
    answered = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
    for call_id in called:
        if call_id not in answered:
            raise RULES["responses.call_answered"].violated(id=call_id)


def _responses_reasoning(items: list[dict[str, Any]], issued: Issued, *, store: Any) -> None:
    for index, item in enumerate(items):
        if item.get("type") == "reasoning":
            _reasoning_item(item, items[index + 1 :], issued, store=store)
        if item.get("type") == "function_call" and item.get("id") in issued.reasoning_of_call:
            reasoning = issued.reasoning_of_call[item["id"]]
            before = {i.get("id") for i in items[:index] if i.get("type") == "reasoning"}
            if reasoning not in before:
                rule = RULES["responses.reasoning_before_call"]
                raise rule.violated(id=item["id"], reasoning=reasoning)


def _reasoning_item(
    item: Mapping[str, Any], after: list[dict[str, Any]], issued: Issued, *, store: Any
) -> None:
    content = item.get("encrypted_content")
    if content is None and store is False:
        raise RULES["responses.reasoning_not_stored"].violated(id=item.get("id"))
    if content is not None and issued.encrypted.get(str(item.get("id"))) != content:
        raise RULES["responses.encrypted_content"].violated(content=str(content)[:40])
    if not after or after[0].get("type") in ("reasoning", "function_call_output"):
        raise RULES["responses.reasoning_followed"].violated(id=item.get("id"))


# ---- Anthropic messages -----------------------------------------------------------------


def check_anthropic(
    headers: Mapping[str, str], body: Mapping[str, Any], api_key: str | None
) -> None:
    if headers.get("x-api-key") != api_key:
        raise RULES["anthropic.api_key"].violated()
    if not headers.get("anthropic-version"):
        raise RULES["anthropic.version_header"].violated()
    required = (
        ("model", isinstance(body.get("model"), str)),
        ("max_tokens", isinstance(body.get("max_tokens"), int) and body["max_tokens"] >= 1),
        ("messages", isinstance(body.get("messages"), list) and body["messages"]),
    )
    for field, ok in required:
        if not ok:
            raise RULES["anthropic.required_fields"].violated(field=field)
    tools = body.get("tools") or []
    _anthropic_tools(tools)
    _anthropic_tool_choice(body.get("tool_choice"), tools)
    system = body.get("system")
    if system == "" or any(
        not block.get("text") for block in system or [] if isinstance(system, list)
    ):
        raise RULES["anthropic.empty_text"].violated(where="system")
    messages = body["messages"]
    _anthropic_history(messages)
    if not tools and any(
        block.get("type") in ("tool_use", "tool_result") for _, block in _blocks(messages)
    ):
        raise RULES["anthropic.tools_for_tool_blocks"].violated()
    _anthropic_cache_breakpoints(body)


def _anthropic_tools(tools: list[dict[str, Any]]) -> None:
    rule = RULES["anthropic.tool_definition"]
    for index, tool in enumerate(tools):
        if not _name_ok(ANTHROPIC_NAME, tool.get("name")):
            problem = "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
            raise rule.violated(index=index, field="name", problem=problem)
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            problem = "Input should be an object schema with type 'object'"
            raise rule.violated(index=index, field="input_schema", problem=problem)


def _anthropic_tool_choice(choice: Any, tools: list[dict[str, Any]]) -> None:
    if choice is None:
        return
    rule = RULES["anthropic.tool_choice"]
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in ("auto", "any", "none", "tool"):
        raise rule.violated(problem=f"Input tag '{kind}' does not match any of the expected tags")
    if kind in ("any", "tool") and not tools:
        raise rule.violated(problem=f"'{kind}' requires tools to be defined")
    if kind == "tool" and choice.get("name") not in {tool.get("name") for tool in tools}:
        raise rule.violated(problem=f"Tool '{choice.get('name')}' not found in provided tools")


def _blocks(messages: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    return [
        (index, block)
        for index, message in enumerate(messages)
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict)
    ]


def _anthropic_history(messages: list[dict[str, Any]]) -> None:
    pending: list[str] = []
    seen: set[str] = set()
    for index, message in enumerate(messages):
        if message.get("role") not in ("user", "assistant"):
            raise RULES["anthropic.message_role"].violated(index=index, role=message.get("role"))
        blocks = _content_blocks(index, message)
        _tool_results(index, blocks, pending)
        pending = []
        for number, block in enumerate(blocks):
            if block.get("type") == "tool_use":
                if block.get("id") in seen:
                    raise RULES["anthropic.tool_use_id_unique"].violated(index=index, block=number)
                seen.add(block.get("id"))
                pending.append(block.get("id"))
    if pending:
        rule = RULES["anthropic.tool_result_follows_use"]
        raise rule.violated(index=len(messages) - 1, ids=", ".join(pending))


def _content_blocks(index: int, message: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not content:
        raise RULES["anthropic.non_empty_content"].violated(index=index)
    texts = [str(block.get("text") or "") for block in content if block.get("type") == "text"]
    if any(not text for text in texts):
        raise RULES["anthropic.empty_text"].violated(where="messages")
    if texts and not any(text.strip() for text in texts):
        raise RULES["anthropic.whitespace_text"].violated()
    return content


def _tool_results(index: int, blocks: list[dict[str, Any]], pending: list[str]) -> None:
    results = [b for b in blocks if b.get("type") == "tool_result"]
    for number, block in enumerate(blocks):
        if block.get("type") == "tool_result" and block.get("tool_use_id") not in pending:
            rule = RULES["anthropic.tool_result_answers_use"]
            raise rule.violated(index=index, block=number, id=block.get("tool_use_id"))
    if not pending:
        return
    answered = {b.get("tool_use_id") for b in results}
    if set(pending) - answered:
        rule = RULES["anthropic.tool_result_follows_use"]
        raise rule.violated(index=index - 1, ids=", ".join(sorted(set(pending) - answered)))
    leading = blocks[: len(pending)]
    if any(block.get("type") != "tool_result" for block in leading):
        raise RULES["anthropic.tool_results_first"].violated(index=index, count=len(pending))


def _anthropic_cache_breakpoints(body: Mapping[str, Any]) -> None:
    system = body.get("system") if isinstance(body.get("system"), list) else []
    blocks = [*(body.get("tools") or []), *system, *(b for _, b in _blocks(body["messages"]))]
    found = sum(1 for block in blocks if isinstance(block, dict) and "cache_control" in block)
    if found > MAX_CACHE_BREAKPOINTS:
        raise RULES["anthropic.cache_breakpoints"].violated(found=found)


# ---- Gemini generateContent -------------------------------------------------------------


def check_gemini(
    headers: Mapping[str, str],
    body: Mapping[str, Any],
    api_key: str | None,
    signatures: Mapping[str, str],
) -> None:
    if headers.get("x-goog-api-key") != api_key:
        raise RULES["gemini.api_key"].violated()
    declarations = [
        d for tool in body.get("tools") or [] for d in tool.get("functionDeclarations") or []
    ]
    for index, declaration in enumerate(declarations):
        where = f"tools[0].function_declarations[{index}]"
        if not _name_ok(GEMINI_NAME, declaration.get("name")):
            raise RULES["gemini.function_name"].violated(where=f"{where}.name")
        if "parameters" in declaration:
            _gemini_schema(declaration["parameters"], f"{where}.parameters")
    schema = (body.get("generationConfig") or {}).get("responseSchema")
    if schema is not None:
        _gemini_schema(schema, "generation_config.response_schema")
    system = (body.get("systemInstruction") or {}).get("parts") or []
    parts = [p for content in body.get("contents") or [] for p in content.get("parts") or []]
    if any("text" in part and not part["text"] for part in [*system, *parts]):
        raise RULES["gemini.empty_text"].violated()
    _gemini_history(body.get("contents") or [], signatures)


def _gemini_schema(schema: Any, where: str) -> None:
    if isinstance(schema, list):
        for item in schema:
            _gemini_schema(item, where)
        return
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in GEMINI_REJECTS:
            raise RULES["gemini.schema_keywords"].violated(key=key, where=where)
        if key == "properties":
            for name, sub in (value or {}).items():
                _gemini_schema(sub, f"{where}.properties[{name}].value")
        elif isinstance(value, dict | list):
            _gemini_schema(value, f"{where}.{key}")
    if isinstance(schema.get("type"), list):
        raise RULES["gemini.schema_type"].violated(where=where)
    if str(schema.get("type", "")).upper() == "OBJECT" and schema.get("properties") == {}:
        raise RULES["gemini.object_properties"].violated(where=where)


def _gemini_history(contents: list[dict[str, Any]], signatures: Mapping[str, str]) -> None:
    previous: list[dict[str, Any]] = []
    previous_kind = None
    for index, content in enumerate(contents):
        parts = content.get("parts")
        if content.get("role") not in ("user", "model") or not parts:
            raise RULES["gemini.content_role"].violated(index=index)
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if calls and previous_kind not in ("user", "responses"):
            raise RULES["gemini.call_turn_order"].violated()
        _gemini_responses(responses, previous, content["role"])
        for call in calls:
            if not _name_ok(GEMINI_NAME, call.get("name")):
                where = f"contents[{index}].parts.function_call.name"
                raise RULES["gemini.function_name"].violated(where=where)
        _gemini_signatures(index, parts, signatures)
        previous = calls
        previous_kind = "responses" if responses else content["role"]


def _gemini_responses(
    responses: list[dict[str, Any]], calls: list[dict[str, Any]], role: str
) -> None:
    if (responses or calls) and len(responses) != len(calls) and (responses or role == "user"):
        raise RULES["gemini.response_count"].violated()
    expected = {(c.get("id"), c.get("name")) for c in calls}
    for response in responses:
        if (response.get("id"), response.get("name")) not in expected:
            rule = RULES["gemini.response_matches_call"]
            raise rule.violated(name=response.get("name"), id=response.get("id"))


def _gemini_signatures(
    index: int, parts: list[dict[str, Any]], signatures: Mapping[str, str]
) -> None:
    for part in parts:
        call = part.get("functionCall") or {}
        signed = signatures.get(str(call.get("id")))
        if signed is not None and part.get("thoughtSignature") != signed:
            raise RULES["gemini.thought_signature"].violated(name=call.get("name"), index=index)
