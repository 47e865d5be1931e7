"""Generators for the property tests: names, schemas, JSON values, configs, LLM scripts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from hypothesis import strategies as st

# Names as MCP servers may send them: dots, unicode, 64+ characters (no surrogates).
TEXT = st.characters(blacklist_categories=("Cs",))
server_names = st.text(TEXT.filter(lambda c: c != "."), min_size=1, max_size=70)
tool_names = st.text(TEXT, min_size=1, max_size=90)
plain_names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(TEXT, max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(TEXT, max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(TEXT, max_size=10), json_values, max_size=5)

_property_schemas = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array", "items": {"type": "string"}},
        {"type": "object", "properties": {"inner": {"type": "string"}}},
        {"type": ["string", "null"]},
        {"enum": ["a", "b"]},
        {},
    ]
)


@st.composite
def input_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """MCP inputSchemas: object schemas with random properties, some with parts missing."""
    properties = draw(st.dictionaries(plain_names, _property_schemas, max_size=5))
    schema: dict[str, Any] = {}
    if draw(st.booleans()):
        schema["type"] = "object"
    if properties or draw(st.booleans()):
        schema["properties"] = properties
    required = (
        draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if properties else []
    )
    if required:
        schema["required"] = required
    if draw(st.booleans()):
        schema["additionalProperties"] = draw(st.booleans())
    return schema


@st.composite
def tool_sets(draw: st.DrawFn, names: st.SearchStrategy[str] = tool_names) -> dict[str, dict]:
    """Tool name -> {description, inputSchema}, 1 to 6 distinct tools."""
    chosen = draw(st.lists(names, min_size=1, max_size=6, unique=True))
    return {
        name: {
            "description": draw(st.text(TEXT, max_size=30)),
            "inputSchema": draw(input_schemas()),
        }
        for name in chosen
    }


# ---- model names ---------------------------------------------------------------------------

providers = st.sampled_from(["", "openai/", "anthropic/", "google/", "deepseek/", "qwen/", "x/y/"])
variants = st.sampled_from(["", ":free", ":beta", "-2024-12-17", "-preview", "-latest"])
# Models the provider registry says take no tools (builders/providers.py), dated variants too
NO_TOOL_FAMILIES = (
    "o1-mini",
    "o1-mini-2024-09-12",
    "o1-preview",
    "o1-preview-2024-09-12",
    "chatgpt-4o-latest",
)
TOOL_FAMILIES = (
    "o1",
    "o1-2024-12-17",
    "o3",
    "o3-mini",
    "o3-pro",
    "o4-mini",
    "grok-4-fast-reasoning",
    "deepseek-reasoner",
    "qwq-32b",
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4-turbo",
    "gpt-3.5-turbo",
    "claude-3-5-sonnet",
    "claude-3-haiku",
    "gemini-1.5-pro",
    "gemini-2.0-flash",
    "mistral-large",
    "llama-3.1-70b-instruct",
    "command-r-plus",
    "qwen-2.5-72b-instruct",
)


def _cased(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from([name, name.upper(), name.title()])


no_tool_models = st.builds(
    lambda p, n, v: p + n + v,
    providers,
    st.sampled_from(NO_TOOL_FAMILIES).flatmap(_cased),
    variants,
)
# a variant that names no other model: `o1` with `-preview` would be o1-preview
tool_variants = st.sampled_from(["", ":free", ":beta", "-2024-12-17", "-latest"])
tool_models = st.builds(
    lambda p, n, v: p + n + v,
    providers,
    st.sampled_from(TOOL_FAMILIES).flatmap(_cased),
    tool_variants,
)


# ---- agent answers -------------------------------------------------------------------------

commands = st.text(
    st.characters(whitelist_categories=("L", "N", "Zs"), max_codepoint=0x24F),
    min_size=1,
    max_size=30,
).filter(lambda s: s.strip())


class AnswerForm(Enum):
    BARE = "bare"
    FENCED = "fenced"
    IN_PROSE = "in_prose"
    PLAIN = "plain"  # one short line, no JSON: the command it says (a small model's way)
    NOT_JSON = "not_json"  # prose over lines: nothing to read
    EMPTY = "empty"
    BLANK = "blank"
    NO_ACTION = "no_action"


@dataclass(frozen=True)
class Answer:
    form: AnswerForm
    thinking: str
    action: str
    new_objective: str | None

    @property
    def parseable(self) -> bool:
        return self.form in (
            AnswerForm.BARE,
            AnswerForm.FENCED,
            AnswerForm.IN_PROSE,
            AnswerForm.PLAIN,
        )

    def text(self) -> str | None:
        body = json.dumps(
            {"thinking": self.thinking, "action": self.action, "new_objective": self.new_objective}
        )
        return {
            AnswerForm.BARE: body,
            AnswerForm.FENCED: f"```json\n{body}\n```",
            AnswerForm.IN_PROSE: f"I will act now.\n{body}\nThat is my answer.",
            AnswerForm.PLAIN: f"> {self.action}",
            AnswerForm.NOT_JSON: f"I think\nI should {self.action}.",
            AnswerForm.EMPTY: None,
            AnswerForm.BLANK: "  \n ",
            AnswerForm.NO_ACTION: json.dumps({"thinking": self.thinking}),
        }[self.form]


answers = st.builds(
    Answer,
    st.sampled_from(AnswerForm),
    st.text(TEXT, max_size=40),
    commands,
    st.none() | st.text(TEXT, max_size=20),
)
good_answers = st.builds(
    Answer,
    st.sampled_from([AnswerForm.BARE, AnswerForm.FENCED, AnswerForm.IN_PROSE]),
    st.text(TEXT, max_size=40),
    commands,
    st.none() | st.text(TEXT, max_size=20),
)


def _with_object_type(tools: dict[str, dict]) -> dict[str, dict]:
    return {
        name: {**tool, "inputSchema": {**tool["inputSchema"], "type": "object"}}
        for name, tool in tools.items()
    }


# Tools as an MCP server lists them: the protocol requires inputSchema.type == "object".
mcp_tool_sets = tool_sets().map(_with_object_type)


# The MCP eras a server may speak: each adapter property holds whichever it meets (issue 38).
server_eras = st.sampled_from(["handshake", "modern", "both"])
