"""The provider registry: everything the project knows about each LLM provider, in one place.

The edges (the CLI, `zork-mcp eval`, an Inspect task, MCP-Ghost) resolve what their user wrote
into one `ResolvedModel` here, once (`resolve_model`, `parse_model`, `inspect_model`: one error
text for a wrong name, wherever it was written): the provider, the model's id, the API that
takes its tools, and its profile (whether it takes tools, its provider's caching rule, price
list and OpenTelemetry name). Every other module reads that value; this registry is the only
table of provider knowledge, with one default (`DEFAULT_PROVIDER`) and one key lookup
(`Provider.key_in`, `required_key`). Adding a provider is one entry here, plus its adapter
in zork_mcp.adapters.llm and its peer in tests/support/llm_peers.py when it brings a new
wire protocol (an OpenAI-compatible service needs neither).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Literal

import httpx

from zork_mcp.adapters.llm.anthropic import AnthropicLLM
from zork_mcp.adapters.llm.endpoint import RetryPolicy
from zork_mcp.adapters.llm.gemini import GeminiLLM
from zork_mcp.adapters.llm.openai.chat import OpenAICompatibleLLM, OpenAIFlavor
from zork_mcp.adapters.llm.openai.responses import OpenAIResponsesLLM
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.model import (
    OPENAI_APIS,
    CacheRule,
    ModelProfile,
    OpenAIApi,
    ResolvedModel,
)
from zork_mcp.domain.tools.model_support import NoTools, refusing_rule
from zork_mcp.domain.tools.wire_names import RULES, WireNameRule
from zork_mcp.ports.llm import LLM

# "openai" is chat completions (OpenAI, OpenRouter, local servers); "openai-responses" is
# OpenAI's Responses API.
WireProtocol = Literal["openai", "openai-responses", "anthropic", "gemini"]
API_PROTOCOLS: dict[OpenAIApi, WireProtocol] = {"chat": "openai", "responses": "openai-responses"}
AdapterFactory = Callable[..., LLM]  # (client, *, model, api_key, base_url, retry, wire_names)


@dataclass(frozen=True)
class ModelFamily:
    """OpenAI models whose names match `pattern`: which API takes their tools, and how."""

    pattern: str  # a regular expression, matched from the start of the model name
    api: OpenAIApi  # the API used unless --openai-api says otherwise
    reasoning: bool  # a reasoning model: the Responses API sends its reasoning back, encrypted
    chat_tools_effort: str | None  # chat completions take its tools only at this effort...
    chat_tools: bool = True  # ...or not at all
    source: str = ""  # where OpenAI says so

    def matches(self, model: str) -> bool:
        return re.match(self.pattern, model) is not None


OPENAI_DEFAULT = "gpt-6-luna"  # OpenAI's default model: current, cheap, takes tools (providers.md)

# The models that take no tools at all, wherever they are served (a name with a provider
# prefix or a variant tag is matched on its bare name); every other model, the o-series from
# o1 on included (o3, o3-mini, o3-pro, o4-mini), and grok-4-fast-reasoning and
# deepseek-reasoner (DeepSeek V3.2: tool calls in thinking mode), takes them. A model not
# named here that refuses tools says so in its provider's own 400, which the run reports.
OPENAI_MODELS = "platform.openai.com/docs/models"
OPENAI_400 = (
    "the API answers 400 \"Unsupported parameter: 'tools' is not supported with this model\""
)
CHECKED = "2026-11-28"
MODELS_WITHOUT_TOOLS = (
    NoTools("o1-mini", f"OpenAI: {OPENAI_400} ({OPENAI_MODELS}/o1-mini)", CHECKED, OPENAI_DEFAULT),
    NoTools(
        "o1-preview", f"OpenAI: {OPENAI_400} ({OPENAI_MODELS}/o1-preview)", CHECKED, OPENAI_DEFAULT
    ),
    NoTools(
        "chatgpt-4o-latest",
        f"OpenAI: function calling not supported ({OPENAI_MODELS}/chatgpt-4o-latest)",
        CHECKED,
        OPENAI_DEFAULT,
    ),
)


@dataclass(frozen=True)
class ToolLimit:
    """The most tools one request may offer, as the provider says (None: it says none)."""

    max_tools: int | None
    source: str


# OpenAI's API reference, chat completions `tools`: "A max of 128 functions are supported"
# (openai/openai-openapi openapi.yaml, 2025-04); the live API answers more with 400 "Invalid
# 'tools': array too long. Expected an array with maximum length 128" (array_above_max_length).
# The Responses API's reference states no count; the same 128 is kept for it.
OPENAI_TOOLS = ToolLimit(128, "platform.openai.com/docs/api-reference/chat/create#tools")
# OpenRouter takes "OpenAI's tool calling request shape" and hands it to the upstream provider
# (openrouter.ai/docs/api_reference/parameters#tools): OpenAI's limit is the one that holds.
OPENROUTER_TOOLS = ToolLimit(128, "openrouter.ai/docs/api_reference/parameters#tools")
# Anthropic documents no count (docs.claude.com agents-and-tools/tool-use/define-tools); only
# the budget for definitions applies.
ANTHROPIC_TOOLS = ToolLimit(None, "docs.claude.com/en/docs/agents-and-tools/tool-use")
# Vertex AI: "The maximum number of function declarations that can be provided with the
# request is 128"; the Gemini API itself refuses over 512 ("At most 512 function declarations
# can be specified"): the documented 128 holds for both.
GEMINI_TOOLS = ToolLimit(
    128, "cloud.google.com/vertex-ai/generative-ai/docs/model-reference/function-calling"
)


# How each provider's prompt cache serves a prompt's prefix (its prompt-caching page, as of
# 2026-11).
OPENAI_CACHE = CacheRule(1024, step=128)  # automatic, from 1,024 tokens in 128-token steps
ANTHROPIC_CACHE = CacheRule(1024, writes=True)  # breakpoints; writes at 1.25x
GEMINI_CACHE = CacheRule(2048)  # Gemini 2.5's implicit caching


@dataclass(frozen=True)
class Provider:
    name: str
    protocol: WireProtocol  # its chat-completions-or-only API: tool-name rule and test peer
    default_model: str
    key_variables: tuple[str, ...]  # the first one set wins
    base_url: str
    adapter: AdapterFactory
    hosted: bool = True  # a key is required; MCP-Ghost offers the hosted providers (spec 004)
    responses: AdapterFactory | None = None  # OpenAI's Responses API, where it is offered
    families: tuple[ModelFamily, ...] = ()  # which API each model family takes (first match)
    tools: ToolLimit = OPENAI_TOOLS  # how many tools one request may offer
    prices: str | None = None  # its name in the price list (genai-prices); None: unpriced
    cache: CacheRule = OPENAI_CACHE  # how its prompt cache serves a prompt's prefix
    maker: str | None = None  # the maker OpenRouter names in a model's id (`anthropic/...`)
    routes: bool = False  # it serves other makers' models, under their caching rules
    inspect_api: str | None = None  # Inspect AI's model API for it (`openai/gpt-4o`)
    telemetry_name: str | None = None  # OpenTelemetry's gen_ai.provider.name (None: `name`)

    def resolve(self, model: str | None = None, api: OpenAIApi | None = None) -> ResolvedModel:
        """`model` (None: the default model) at this provider, through `api` (None: its
        family's); an API the model cannot take is refused, saying why."""
        name = model or self.default_model
        family = self.family_of(name)
        profile = ModelProfile(
            refused_tools=refusing_rule(name, MODELS_WITHOUT_TOOLS),
            cache=self._cache_for(name),
            price_list=self.prices,
            telemetry_name=self.telemetry_name or self.name,
            max_tools=self.tools.max_tools,
            reasoning=family.reasoning if family else False,
            chat_tools_effort=family.chat_tools_effort if family else None,
        )
        return ResolvedModel(self.name, name, self._api(name, family, api), profile)

    def _cache_for(self, model: str) -> CacheRule:
        """Its own rule; a router's is the rule of the maker its model's id names."""
        if not self.routes:
            return self.cache
        maker = model.partition("/")[0]
        return next((p.cache for p in PROVIDERS.values() if p.maker == maker), OPENAI_CACHE)

    @property
    def wire_names(self) -> WireNameRule:
        """The tool names its API accepts: the rule its adapter is built with."""
        return RULES[self.protocol]

    @property
    def protocols(self) -> tuple[WireProtocol, ...]:
        return (self.protocol, "openai-responses") if self.responses else (self.protocol,)

    def family_of(self, model: str) -> ModelFamily | None:
        return next((family for family in self.families if family.matches(model)), None)

    def _api(
        self, model: str, family: ModelFamily | None, chosen: OpenAIApi | None
    ) -> OpenAIApi | None:
        """`chosen`, else the family's (None: this provider has one API)."""
        if chosen is not None and chosen not in OPENAI_APIS:
            raise ConfigurationError(
                f"openai_api must be one of {', '.join(OPENAI_APIS)} (or None), got {chosen!r}."
            )
        if self.responses is None:
            if chosen is not None:
                raise ConfigurationError(
                    f"openai_api (--openai-api) is for provider 'openai'; '{self.name}' has "
                    "one API (chat completions). Leave it out."
                )
            return None
        if chosen == "chat" and family is not None and not family.chat_tools:
            raise ConfigurationError(
                f"OpenAI model '{model}' takes tools only through the Responses API "
                f"({family.source}); choose openai_api 'responses' (--openai-api "
                "responses), or leave it out."
            )
        return chosen or (family.api if family else "chat")

    def protocol_for(self, model: ResolvedModel) -> WireProtocol:
        return API_PROTOCOLS[model.api] if model.api else self.protocol

    def key_in(self, environ: Mapping[str, str]) -> str | None:
        return next((environ[name] for name in self.key_variables if environ.get(name)), None)

    def llm(
        self,
        client: httpx.AsyncClient,
        model: ResolvedModel,
        *,
        api_key: str | None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> LLM:
        """The adapter for `model` (one this provider resolved) over `client`."""
        options = {"api_key": api_key, "base_url": base_url or self.base_url, "retry": retry}
        profile = model.profile
        if model.api == "responses" and self.responses is not None:
            return self.responses(
                client,
                model=model.name,
                reasoning=profile.reasoning,
                wire_names=RULES["openai-responses"],
                **options,
            )
        if profile.chat_tools_effort is not None:
            options["tools_reasoning_effort"] = profile.chat_tools_effort
        return self.adapter(client, model=model.name, wire_names=self.wire_names, **options)


def _keyed(adapter: type) -> AdapterFactory:
    """Anthropic and Gemini always send a key header; a missing key is sent empty."""

    def build(client: httpx.AsyncClient, *, api_key: str | None, **options: object) -> LLM:
        return adapter(client, api_key=api_key or "", **options)

    return build


# Which API each OpenAI model family takes tools through, checked on 2026-11-24 (README:
# "OpenAI: chat completions or Responses"). OpenAI: "Starting with GPT-5.4, Chat Completions
# does not support tool calling with reasoning_effort values other than none", and "Reasoning
# with tools should use the Responses API" (developers.openai.com guides migrate-to-responses,
# upgrading-to-gpt-5p6-sol).
MIGRATE = "developers.openai.com/api/docs/guides/migrate-to-responses"
OPENAI_FAMILIES = (
    ModelFamily(
        r"gpt-[0-9.]+-codex|gpt-[0-9.]+-pro\b|o[13]-pro\b",
        "responses",
        reasoning=True,
        chat_tools_effort=None,
        chat_tools=False,
        source="'This model is only supported in v1/responses and not in v1/chat/completions'",
    ),
    ModelFamily(
        r"gpt-6-astra|gpt-6\.[1-9]|gpt-([7-9]|[1-9][0-9])",
        "responses",
        reasoning=True,
        chat_tools_effort=None,
        chat_tools=False,
        source="developers.openai.com/api/docs/models/gpt-6-astra and gpt-6.1-sol: chat "
        "completions do not support tool calling for these models",
    ),
    ModelFamily(
        r"gpt-6-(sol|luna)\b",
        "chat",
        reasoning=True,
        chat_tools_effort="none",
        source="developers.openai.com/api/docs/models/gpt-6-sol and gpt-6-luna: tools in chat "
        "completions with reasoning_effort 'none'",
    ),
    ModelFamily(
        r"gpt-5\.[4-9]|gpt-6",
        "responses",
        reasoning=True,
        chat_tools_effort="none",
        source=f"{MIGRATE}; upgrading-to-gpt-5p6-sol: 'Reasoning with tools should use the "
        "Responses API'",
    ),
    ModelFamily(
        r"gpt-5|o[1-9]",
        "chat",
        reasoning=True,
        chat_tools_effort=None,
        source="developers.openai.com/api/docs/models: function calling in chat completions",
    ),
)

# Default models are current, cheap and tool-capable, checked against each provider's model
# and deprecation pages on 2026-11-23 (README: "Default models").
PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "openrouter",
            "openai",
            "anthropic/claude-haiku-5.5",
            ("OPENROUTER_API_KEY",),
            "https://openrouter.ai/api/v1",
            # OpenRouter passes cache_control on to Anthropic, which honours it.
            partial(OpenAICompatibleLLM, flavor=OpenAIFlavor("openrouter", cache_markers=True)),
            tools=OPENROUTER_TOOLS,
            prices="openrouter",
            routes=True,
            inspect_api="openrouter",
        ),
        Provider(
            "openai",
            "openai",
            OPENAI_DEFAULT,
            ("OPENAI_API_KEY",),
            "https://api.openai.com/v1",
            partial(OpenAICompatibleLLM, flavor=OpenAIFlavor("openai", cache_markers=False)),
            responses=OpenAIResponsesLLM,
            families=OPENAI_FAMILIES,
            prices="openai",
            maker="openai",
            inspect_api="openai",
        ),
        Provider(
            "anthropic",
            "anthropic",
            "claude-haiku-5-5",
            ("ANTHROPIC_API_KEY",),
            "https://api.anthropic.com",
            _keyed(AnthropicLLM),
            tools=ANTHROPIC_TOOLS,
            prices="anthropic",
            cache=ANTHROPIC_CACHE,
            maker="anthropic",
            inspect_api="anthropic",
        ),
        Provider(
            "gemini",
            "gemini",
            "gemini-3.5-flash-lite",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            "https://generativelanguage.googleapis.com",
            _keyed(GeminiLLM),
            tools=GEMINI_TOOLS,
            prices="google",
            cache=GEMINI_CACHE,
            maker="google",
            inspect_api="google",
            telemetry_name="gcp.gemini",  # OpenTelemetry's well-known value
        ),
        Provider(
            "local",
            "openai",
            "local-model",
            ("LOCAL_LLM_API_KEY",),
            "http://127.0.0.1:8080/v1",
            partial(OpenAICompatibleLLM, flavor=OpenAIFlavor("local", cache_markers=False)),
            hosted=False,
            telemetry_name="openai",  # it speaks OpenAI's protocol
        ),
    )
}
HOSTED = tuple(name for name, p in PROVIDERS.items() if p.hosted)
DEFAULT_PROVIDER = "openrouter"


def provider_named(name: str, *, where: str = "", hosted: bool = False) -> Provider:
    """The provider called `name`; refused with the names to use if there is none (or, with
    `hosted`, if it needs no key: MCP-Ghost offers the hosted providers only)."""
    names = HOSTED if hosted else tuple(PROVIDERS)
    if name not in names:
        place = f" in {where}" if where else ""
        raise ConfigurationError(
            f"Unknown provider {name!r}{place}; choose one of {', '.join(names)}."
        )
    return PROVIDERS[name]


def resolve_model(
    provider: str = DEFAULT_PROVIDER,
    model: str | None = None,
    api: OpenAIApi | None = None,
    *,
    where: str = "",
    hosted: bool = False,
) -> ResolvedModel:
    """`model` (None: the provider's default) at the provider called `provider`, through
    `api` (None: the registry's choice); a wrong name or API is refused, saying why."""
    return provider_named(provider, where=where, hosted=hosted).resolve(model, api)


DEFAULT_MODEL = resolve_model()


def parse_model(text: str) -> ResolvedModel:
    """`provider:model` (the model may hold colons, e.g. `local:qwen:7b`)."""
    name, sep, model = text.partition(":")
    if not sep or not model:
        raise ConfigurationError(
            f"Model '{text}' is not provider:model (e.g. openrouter:openai/gpt-4o-mini, "
            f"local:my-model); providers: {', '.join(PROVIDERS)}."
        )
    return resolve_model(name, model, where=f"model '{text}'")


def inspect_model(name: str) -> ResolvedModel:
    """Inspect AI's model `api/model` (`openai/gpt-4o`, `openrouter/anthropic/claude-...`) as
    the registry resolves it: the provider whose Inspect API it is, the rest its id, as that
    provider and its price list know it. Any other API (`mockllm`, `openai-api/<service>`,
    `ollama`) is held to OpenAI's limits and price list, its whole name its id (which no
    price list has, so unpriced unless its answers name a model OpenAI's list knows)."""
    api, _, model = name.partition("/")
    provider = next((p for p in PROVIDERS.values() if api and p.inspect_api == api), None)
    if provider is None or not model:
        return PROVIDERS["openai"].resolve(name)
    return provider.resolve(model)


# A key as docs and examples write one, not a key: `...`, `sk-...`, `<your key>`, `your-key-here`.
_PLACEHOLDER = re.compile(
    r".*(\.\.\.|…).*|<.*>|\{.*\}|x{3,}|(your|my)[-_ ]?(api[-_ ]?)?key([-_ ]?here)?"
    r"|(api[-_ ]?)?key[-_ ]?here|changeme|change[-_ ]?me|placeholder|replace[-_ ]?me|todo",
    re.IGNORECASE,
)


def placeholder(key: str) -> bool:
    """Whether `key` is a placeholder (or blank) rather than a key: sent, it only earns 401s
    and retries."""
    text = key.strip().strip("'\"").strip()
    return not text or _PLACEHOLDER.fullmatch(text) is not None


def required_key(provider: Provider, environ: Mapping[str, str], *, how: str) -> str | None:
    """The provider's key from `environ` (its first variable set); a hosted provider without
    one is refused, saying which variables to set and `how` else to give it, and so is one
    whose variable holds a placeholder (`OPENROUTER_API_KEY=...` as the README writes it)
    or nothing; the value itself is never repeated."""
    key = provider.key_in(environ)
    if not provider.hosted:
        return key
    set_at_all = [name for name in provider.key_variables if name in environ]
    holder = next(
        (name for name in set_at_all if environ[name]), set_at_all[0] if set_at_all else None
    )
    if holder is not None and (key is None or placeholder(key)):
        held = "is empty" if key is None else "holds a placeholder, not an API key"
        raise ConfigurationError(
            f"{holder} {held}: set it to your {provider.name} API key (`export {holder}=` and "
            f"the key, or a line `{holder}=` and the key in ./.env), {how}."
        )
    if key:
        return key
    names = provider.key_variables
    raise ConfigurationError(
        f"No API key for provider '{provider.name}': set {' or '.join(names)} (e.g. `export "
        f"{names[0]}=...`, or a line `{names[0]}=...` in ./.env), {how}."
    )
