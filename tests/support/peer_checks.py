"""How the provider peers enforce the rules of provider_rules.py on a request body.

One `check_<provider>` function per wire protocol; each raises the violated rule's Rejected
(the provider's own status and message) at the first broken rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tests.support.provider_rules import RULES

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
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
REASONING_MODELS = re.compile(r"^gpt-(5\.[4-9]|[6-9])")  # OpenAI's, not OpenRouter's slugs
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
    tools = body.get("tools") or []
    for index, tool in enumerate(tools):
        if not _name_ok(OPENAI_NAME, (tool.get("function") or {}).get("name")):
            raise RULES["openai.tool_name"].violated(where=f"tools[{index}].function.name")
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
    if not _name_ok(OPENAI_NAME, spec.get("name")):
        raise rule.violated(problem="json_schema.name must match '^[a-zA-Z0-9_-]+$'")
    schema = spec.get("schema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise rule.violated(problem="json_schema.schema must be an object schema")
    if spec.get("strict"):
        _strict(schema, "()")


def _strict(node: Mapping[str, Any], where: str) -> None:
    rule = RULES["openai.strict_schema"]
    if node.get("type") == "object" or "properties" in node:
        properties = node.get("properties") or {}
        if node.get("additionalProperties") is not False:
            problem = "'additionalProperties' is required to be supplied and to be false"
            raise rule.violated(where=where, problem=problem)
        if sorted(node.get("required") or []) != sorted(properties):
            problem = "'required' is required to be supplied and to be an array including every key"
            raise rule.violated(where=where, problem=problem)
        for name, sub in properties.items():
            _strict(sub, f"{where}.properties.{name}")


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
