"""The provider registry is the one place the CLI, eval, MCP-Ghost and the tests learn providers."""

from __future__ import annotations

import time
from dataclasses import replace

import httpx
import pytest

from tests.support.llm_peers import PEERS, peer_for
from zork_mcp.adapters.llm.endpoint import RetryPolicy
from zork_mcp.adapters.llm.fake import tool_calls_reply
from zork_mcp.app.cli import main, options_from, parser
from zork_mcp.app.sweep.sweep import model_spec
from zork_mcp.builders.llm import llm_session, llm_settings
from zork_mcp.builders.providers import HOSTED, PROVIDERS, inspect_model, resolve_model
from zork_mcp.builders.settings import RunOptions
from zork_mcp.domain.errors import ConfigurationError, LLMError
from zork_mcp.domain.llm.messages import LLMRequest, RetryStats, initial_messages
from zork_mcp.domain.tools.tool_schema import ToolSpec, tool_definitions
from zork_mcp.domain.tools.wire_names import RULES
from zork_mcp.ghost import mcp_ghost, mcp_ghost_sync

TOOL = "game.look.around"  # a dot: every provider needs its own wire form
TOOLS = tool_definitions([ToolSpec("game", "look.around", "look")])


async def one_call(name: str, peer, tools: tuple, urls: list | None = None, **options):
    """The registry's adapter for `name`, built as the CLI builds it (with these RunOptions),
    asked once; the peer answers (and `urls` gets each URL reached)."""
    provider = PROVIDERS[name]

    def handler(request: httpx.Request) -> httpx.Response:
        if urls is not None:
            urls.append(request.url)
        status, headers, body = peer.handle(
            request.url.path, dict(request.headers), request.content
        )
        return httpx.Response(status, headers=headers, content=body)

    environ = {provider.key_variables[-1]: peer.api_key}
    settings = llm_settings(RunOptions(model=provider.resolve(**options)), environ=environ)
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client,
        llm_session(settings, RetryStats(), client)() as llm,
    ):
        return llm, await llm.complete(LLMRequest(tuple(initial_messages("s", "u")), tools))


@pytest.mark.parametrize("name", sorted(PROVIDERS))
async def test_each_provider_reaches_its_base_url_with_its_key_in_its_protocol(name):
    """With no base URL the adapter talks to the registry's, in a form its peer accepts."""
    provider = PROVIDERS[name]
    peer = peer_for(provider.protocol, [tool_calls_reply((TOOL, {}))], [TOOL])
    urls: list[httpx.URL] = []
    llm, response = await one_call(name, peer, TOOLS, urls)

    assert peer.rejections == []
    assert str(urls[0]).startswith(provider.base_url.rstrip("/"))
    assert llm.model == provider.default_model == provider.resolve().name
    assert [call.function.name for call in response.tool_calls] == [TOOL]
    wire = peer.requests[0]
    assert provider.wire_names.pattern.match(_offered_name(provider.protocol, wire))


@pytest.mark.parametrize("name", sorted(PROVIDERS))
async def test_the_registry_is_where_each_adapter_gets_its_tool_name_rule(name, monkeypatch):
    """A rule changed in the registry is the rule the adapter offers names by."""
    provider = PROVIDERS[name]
    stricter = replace(provider.wire_names, max_length=20)
    monkeypatch.setitem(RULES, provider.protocol, stricter)
    long_name = "game.look.around.the.white.house"  # 32 characters: hashed to fit in 20
    tools = tool_definitions([ToolSpec("game", "look.around.the.white.house", "look")])
    peer = peer_for(provider.protocol, [tool_calls_reply((long_name, {}))], [long_name])
    _, response = await one_call(name, peer, tools)
    offered = _offered_name(provider.protocol, peer.requests[0])
    assert len(offered) <= 20 and stricter.pattern.match(offered)
    assert [call.function.name for call in response.tool_calls] == [long_name]


def _offered_name(protocol: str, body: dict) -> str:
    tool = body["tools"][0]
    if protocol == "gemini":
        return tool["functionDeclarations"][0]["name"]
    return tool["name"] if protocol == "anthropic" else tool["function"]["name"]


def test_every_protocol_in_the_registry_has_a_peer():
    assert {kind for provider in PROVIDERS.values() for kind in provider.protocols} <= set(PEERS)


# ---- OpenAI: which API takes a model family's tools ---------------------------------------

# As OpenAI's model pages, guides and API errors describe each family (README: "OpenAI: chat
# completions or Responses"); the peers hold their own reading of the same pages.
OPENAI_ROUTES = {
    "gpt-6-luna": "openai",  # chat completions, tools with reasoning_effort "none"
    "gpt-6-sol": "openai",
    "gpt-6-astra": "openai-responses",  # rejects "none": no tools in chat completions
    "gpt-6.1-sol": "openai-responses",
    "gpt-6.1-terra": "openai-responses",
    "gpt-5.4-mini": "openai-responses",  # chat only with reasoning off; reasoning goes here
    "gpt-5.6-terra": "openai-responses",
    "gpt-5.1-codex": "openai-responses",  # served by the Responses API only
    "o3-pro": "openai-responses",
    "gpt-5-mini": "openai",
    "gpt-4.1-mini": "openai",
}


@pytest.mark.parametrize("model", sorted(OPENAI_ROUTES))
async def test_each_openai_model_gets_its_tools_through_an_api_that_takes_them(model):
    protocol = PROVIDERS["openai"].protocol_for(resolve_model("openai", model))
    assert protocol == OPENAI_ROUTES[model]
    peer = peer_for(protocol, [tool_calls_reply((TOOL, {}))], [TOOL])
    _, response = await one_call("openai", peer, TOOLS, model=model)
    assert peer.rejections == [] and [call.function.name for call in response.tool_calls] == [TOOL]


@pytest.mark.parametrize("model", ["gpt-5.6-terra", "gpt-6-sol", "gpt-5.4-mini"])
async def test_chat_completions_can_be_chosen_where_openai_says_they_take_tools(model):
    peer = peer_for("openai", [tool_calls_reply((TOOL, {}))], [TOOL])
    await one_call("openai", peer, TOOLS, model=model, api="chat")
    assert peer.rejections == [] and peer.requests[0]["reasoning_effort"] == "none"


@pytest.mark.parametrize("model", ["gpt-6-astra", "gpt-6.1-sol", "gpt-5.1-codex"])
def test_chat_completions_are_refused_for_a_model_that_takes_tools_only_through_responses(
    model, capsys
):
    with pytest.raises(SystemExit):
        parser_args = ["--provider", "openai", "--model", model, "--openai-api", "chat"]
        options_from(parser().parse_args(parser_args))
    error = capsys.readouterr().err
    assert f"OpenAI model '{model}' takes tools only through the Responses API" in error
    assert "--openai-api responses" in error


async def test_the_old_request_for_gpt_6_1_sol_gets_openais_400_from_the_chat_peer():
    """What the chat adapter sent GPT-5.4 and later before the registry chose an API."""
    peer = peer_for("openai", [tool_calls_reply((TOOL, {}))], [TOOL])
    async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
        llm = PROVIDERS["openai"].adapter(
            client,
            model="gpt-6.1-sol",
            api_key=peer.api_key,
            base_url="https://api.openai.com/v1",
            retry=RetryPolicy(attempts=1),
            tools_reasoning_effort="none",
        )
        with pytest.raises(LLMError, match=r"HTTP 400.*'none' is not supported with the"):
            await llm.complete(LLMRequest(tuple(initial_messages("s", "u")), TOOLS))
    assert peer.broken_rules == ["openai.effort_none_unsupported"]


def test_openai_api_is_refused_for_a_provider_with_one_api(capsys):
    with pytest.raises(SystemExit):
        options_from(parser().parse_args(["--provider", "openrouter", "--openai-api", "chat"]))
    assert "is for provider 'openai'; 'openrouter' has one API" in capsys.readouterr().err


async def test_an_unknown_openai_api_is_refused_before_any_request():
    config = {"mcpServers": {"s": {"command": "x"}}}
    with pytest.raises(ConfigurationError, match="openai_api must be one of chat, responses"):
        await mcp_ghost(config, "s", "openai", "k", "u", openai_api="assistants")
    with pytest.raises(ConfigurationError, match="got 'assistants'"):
        PROVIDERS["openai"].resolve(api="assistants")


def test_the_cli_passes_the_chosen_api_on():
    args = ["--provider", "openai", "--openai-api", "responses", "--model", "gpt-4.1-mini"]
    options = options_from(parser().parse_args(args))
    assert options.model.api == "responses"
    assert PROVIDERS["openai"].protocol_for(options.model) == "openai-responses"


def test_the_cli_and_eval_offer_exactly_the_registry():
    choices = next(a.choices for a in parser()._actions if a.dest == "provider")
    assert list(choices) == list(PROVIDERS)
    for name in PROVIDERS:
        assert model_spec(f"{name}:m").provider == name


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_a_missing_key_is_an_error_only_for_hosted_providers(name):
    options = RunOptions(model=resolve_model(name))
    if name not in HOSTED:
        assert llm_settings(options, environ={}).api_key is None
        return
    with pytest.raises(ConfigurationError) as caught:
        llm_settings(options, environ={})
    assert all(variable in str(caught.value) for variable in PROVIDERS[name].key_variables)


async def test_mcp_ghost_offers_the_hosted_providers_only():
    local = [name for name in PROVIDERS if name not in HOSTED]
    assert local == ["local"]
    refused = "Unknown provider 'local' in mcp_ghost\\(\\); choose one of " + ", ".join(HOSTED)
    with pytest.raises(ConfigurationError, match=refused):
        await mcp_ghost({"mcpServers": {"s": {"command": "x"}}}, "s", "local", "k", "u")


def test_a_wrong_provider_name_reads_the_same_in_the_cli_eval_and_mcp_ghost(capsys):
    refused = "Unknown provider 'openia'"
    with pytest.raises(SystemExit):
        parser().parse_args(["--provider", "openia"])
    assert refused in capsys.readouterr().err
    with pytest.raises(ConfigurationError, match=refused):
        model_spec("openia:gpt-6-luna")
    with pytest.raises(ConfigurationError, match=refused):
        mcp_ghost_sync({"mcpServers": {"s": {"command": "x"}}}, "s", "openia", "k", "u")


PLACEHOLDERS = ["...", "sk-...", "sk-or-v1-...", "<your key>", "your-key-here", "YOUR_API_KEY",
                '"..."', "xxxxxxxx", "  "]  # fmt: skip


@pytest.mark.parametrize("written", PLACEHOLDERS)
def test_a_placeholder_key_is_refused_at_once_naming_its_variable_never_its_value(written):
    """Issue 55: `OPENROUTER_API_KEY=...`, as the README writes it, was sent as a key: 15 s of
    retries before a clear error."""
    with pytest.raises(ConfigurationError) as caught:
        llm_settings(
            RunOptions(model=resolve_model("openrouter")), environ={"OPENROUTER_API_KEY": written}
        )
    message = str(caught.value)
    assert message.startswith("OPENROUTER_API_KEY holds a placeholder, not an API key: set it")
    assert "./.env" in message
    if len(written.strip()) > 3:  # shorter ones (`...`) are words the message may hold
        assert written.strip() not in message


def test_an_empty_key_variable_is_named_and_a_real_looking_key_is_taken():
    with pytest.raises(ConfigurationError, match=r"^OPENROUTER_API_KEY is empty: set it"):
        llm_settings(
            RunOptions(model=resolve_model("openrouter")), environ={"OPENROUTER_API_KEY": ""}
        )
    key = "sk-or-v1-0123456789abcdef0123456789abcdef"
    environ = {"OPENROUTER_API_KEY": key}
    assert (
        llm_settings(RunOptions(model=resolve_model("openrouter")), environ=environ).api_key == key
    )
    local = llm_settings(
        RunOptions(model=resolve_model("local")), environ={"OPENAI_API_KEY": "..."}
    )
    assert local.model.provider == "local"  # a local server takes whatever key it is given


def test_the_cli_refuses_the_readmes_placeholder_key_before_any_request(
    monkeypatch, capsys, tmp_path, zork_game
):
    monkeypatch.setenv("OPENROUTER_API_KEY", "...")
    started = time.monotonic()
    run = ["--provider", "openrouter", "--max-turns", "1", "--game", str(zork_game), "--plain"]
    assert main([*run, "--log-dir", str(tmp_path), "--no-mcp"]) == 2
    assert time.monotonic() - started < 5, "refused at once, not after retries"
    error = capsys.readouterr().err
    assert "error: OPENROUTER_API_KEY holds a placeholder, not an API key" in error


@pytest.mark.parametrize(
    ("inspect_name", "provider", "model"),
    [
        ("openai/gpt-4.1-mini", "openai", "gpt-4.1-mini"),
        ("anthropic/claude-haiku-5-5", "anthropic", "claude-haiku-5-5"),
        ("google/gemini-3.5-flash-lite", "gemini", "gemini-3.5-flash-lite"),
        ("openrouter/anthropic/claude-haiku-5.5", "openrouter", "anthropic/claude-haiku-5.5"),
        ("mockllm/model", "openai", "mockllm/model"),  # held to OpenAI's limits and prices
        ("openai-api/lab/qwen-7b", "openai", "openai-api/lab/qwen-7b"),
    ],
)
def test_an_inspect_model_resolves_to_the_provider_whose_inspect_api_it_is(
    inspect_name, provider, model
):
    resolved = inspect_model(inspect_name)
    assert (resolved.provider, resolved.name) == (provider, model)
    assert resolved.profile.price_list == PROVIDERS[provider].prices


def test_a_model_is_resolved_once_with_what_the_registry_knows_of_it():
    """The profile every reader takes: its caching rule (OpenRouter's, its maker's), its price
    list, OpenTelemetry's name for its provider, how many tools a request may offer."""
    claude = resolve_model("openrouter", "anthropic/claude-haiku-5.5")
    assert claude.profile.cache == resolve_model("anthropic").profile.cache
    assert claude.profile.cache.writes and claude.profile.price_list == "openrouter"
    gemini = resolve_model("openrouter", "google/gemini-3.5-flash-lite")
    assert gemini.profile.cache == resolve_model("gemini").profile.cache
    assert resolve_model("openrouter", "meta-llama/llama-4").profile.cache.step == 128
    assert resolve_model("gemini").profile.telemetry_name == "gcp.gemini"
    assert resolve_model("local").profile.telemetry_name == "openai"
    assert resolve_model("anthropic").profile.max_tools is None
    sol = resolve_model("openai", "gpt-6-sol")
    assert (sol.api, sol.profile.chat_tools_effort, sol.profile.reasoning) == ("chat", "none", True)
    assert str(sol) == "openai:gpt-6-sol"
