"""mcp_ghost(): one prompt, every configured MCP server, any of the providers, a structured result.

It composes the same parts the agent uses: the stdio tool server (all servers, not just the
first), the provider adapters, and the domain's tool loop under MCP-Ghost's policy (free-text
answer, backtracking, circuit breaker).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import httpx
from pydantic import ValidationError

from zork_mcp.builders.env_file import environment_with_env_file
from zork_mcp.builders.llm import LLMSettings
from zork_mcp.builders.providers import (
    PROVIDERS,
    OpenAIApi,
    Provider,
    placeholder,
    required_key,
    resolve_model,
)
from zork_mcp.domain.errors import ConfigurationError, LLMError, MCPError, NestedEventLoopError
from zork_mcp.domain.llm.messages import Message, system_message, user_message
from zork_mcp.domain.loop.context_budget import ContextBudget
from zork_mcp.domain.loop.loop_policy import LoopLimits, LoopPolicy
from zork_mcp.domain.loop.recovery import Recovery
from zork_mcp.domain.loop.tool_loop import ToolLoop
from zork_mcp.domain.servers.server_config import MCPConfig
from zork_mcp.domain.settings import TOOL_TIMEOUT_SECONDS, ServerStart
from zork_mcp.domain.validation import describe_validation_error
from zork_mcp.ghost.memory import RecentContextLLM
from zork_mcp.ghost.parts import GhostCall, GhostParts, ghost_parts
from zork_mcp.ghost.result import GhostAnswerReader, GhostResultDict, failed_run, ghost_result
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.tool_server import ToolSession

FINAL_ANSWER_PROMPT = "Please give your final answer now without calling any more tools."
MAX_BACKTRACKS = 3
BREAKER_THRESHOLD = 3


def ghost_policy(enable_backtracking: bool) -> LoopPolicy[str]:
    backtracks = MAX_BACKTRACKS if enable_backtracking else 0
    return LoopPolicy(
        final_format=None,
        final_prompt=FINAL_ANSWER_PROMPT,
        answer=GhostAnswerReader(),
        recovery=Recovery(max_backtracks=backtracks, breaker_threshold=BREAKER_THRESHOLD),
    )


async def mcp_ghost(
    server_config: Mapping[str, Any],
    system_prompt: str,
    provider: str,
    api_key: str | None,
    user_prompt: str,
    model: str | None = None,
    namespace: str = "mcp_ghost",
    timeout: float = TOOL_TIMEOUT_SECONDS,
    max_iterations: int = 10,
    enable_backtracking: bool = True,
    conversation_memory: bool = True,
    base_url: str | None = None,
    *,
    http_client: httpx.AsyncClient | None = None,
    startup_timeout: float | None = None,
    context_budget_tokens: int = ContextBudget.max_tokens,
    server_start: ServerStart = "auto",
    openai_api: OpenAIApi | None = None,
) -> GhostResultDict:
    """Answer `user_prompt` with the tools of every server in `server_config`.

    `api_key=None` takes the provider's key variable (e.g. OPENAI_API_KEY) from the
    environment, else from the working directory's `.env`. Bad arguments raise
    ConfigurationError at once; a server that does not start or a
    provider that fails ends the run with `success=False` and the error in `errors`.
    Past `context_budget_tokens` (estimated) older steps are sent condensed; see
    zork_mcp.domain.loop.context_budget. Every server process is closed before this returns,
    raises or is cancelled. `server_start` is as in [tool.zorkgpt.mcp]: Python servers
    are forked from one fork server that every call in this process shares (the first
    call spawns while it starts). `openai_api` ("chat" or "responses") picks OpenAI's API
    for provider "openai"; by default the registry picks the one the model takes tools
    through.
    """
    config = _server_config(server_config)
    resolved = resolve_model(provider, model, openai_api, where="mcp_ghost()", hosted=True)
    _check_arguments(timeout, max_iterations, context_budget_tokens)
    call = GhostCall(
        config,
        LLMSettings(resolved, _api_key(PROVIDERS[resolved.provider], api_key), base_url),
        logging.getLogger(namespace),
        http_client=http_client,
        startup_timeout=startup_timeout,
        server_start=server_start,
    )
    limits = LoopLimits(
        max_iterations, timeout, context_budget=ContextBudget(max_tokens=context_budget_tokens)
    )
    messages = [system_message(system_prompt), user_message(user_prompt)]
    started = time.monotonic()
    async with ghost_parts(call, user_prompt) as parts:
        llm = parts.llm if conversation_memory else RecentContextLLM(parts.llm)
        run = _Run(parts, llm, limits, ghost_policy(enable_backtracking), started)
        return await run.answer(messages, call.logger)


class _Run:
    """One call's loop over its session, and the result it reports either way."""

    def __init__(
        self,
        parts: GhostParts,
        llm: LLM,
        limits: LoopLimits,
        policy: LoopPolicy[str],
        started: float,
    ) -> None:
        self._parts, self._llm, self._policy = parts, llm, policy
        self._limits = replace(limits, offer=parts.offer)
        self._started = started
        self._servers, self._discovered = len(parts.config.mcpServers), 0

    async def answer(self, messages: list[Message], logger: logging.Logger) -> GhostResultDict:
        loop: ToolLoop[str] | None = None
        try:
            async with self._parts.tool_server.open_session() as session:
                loop = self._loop(session)
                outcome = await loop.run(messages)
        except (MCPError, LLMError) as error:
            logger.warning("mcp_ghost run failed: %s", error)
            return self._failed(str(error), messages, loop)
        return GhostResultDict(
            ghost_result(
                outcome,
                tools_discovered=self._discovered,
                servers_connected=self._servers,
                elapsed_seconds=time.monotonic() - self._started,
                max_iterations=self._limits.max_iterations,
            )
        )

    def _loop(self, session: ToolSession) -> ToolLoop[str]:
        self._discovered = len(session.tools)
        return ToolLoop(
            self._llm,
            session,
            self._limits,
            self._parts.telemetry,
            time.monotonic,
            policy=self._policy,
        )

    def _failed(
        self, error: str, messages: list[Message], loop: ToolLoop[str] | None
    ) -> GhostResultDict:
        return GhostResultDict(
            failed_run(
                error,
                elapsed_seconds=time.monotonic() - self._started,
                servers_connected=self._servers if loop else 0,
                conversation_so_far=messages,
                tools_discovered=self._discovered if loop else 0,
                partial=loop.so_far() if loop else None,
            )
        )


def mcp_ghost_sync(*args: Any, **kwargs: Any) -> GhostResultDict:
    """mcp_ghost() for synchronous code: one asyncio.run, never inside a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(mcp_ghost(*args, **kwargs))
    raise NestedEventLoopError(
        "mcp_ghost_sync() was called from a running event loop; use `await mcp_ghost(...)`."
    )


def _server_config(server_config: Mapping[str, Any]) -> MCPConfig:
    try:
        config = MCPConfig.model_validate(server_config)
    except ValidationError as e:
        raise ConfigurationError(
            f"server_config is not in the mcpServers format:\n{describe_validation_error(e)}\n"
            'Expected: {"mcpServers": {"<name>": {"command": "...", "args": [...]}}} '
            'or {"<name>": {"type": "http", "url": "http://..."}}'
        ) from e
    if not config.mcpServers:
        raise ConfigurationError('server_config names no server: add one under "mcpServers".')
    return config


def _check_arguments(timeout: float, max_iterations: int, context_budget_tokens: int) -> None:
    if not timeout > 0:
        raise ConfigurationError(f"timeout must be more than 0 seconds, got {timeout}.")
    if max_iterations < 1:
        raise ConfigurationError(f"max_iterations must be at least 1, got {max_iterations}.")
    if context_budget_tokens < 1:
        raise ConfigurationError(
            f"context_budget_tokens must be at least 1, got {context_budget_tokens}."
        )


def _api_key(provider: Provider, given: str | None) -> str:
    if given is None:
        given = required_key(provider, environment_with_env_file(), how="or pass it as api_key")
    if placeholder(given):
        names = provider.key_variables
        raise ConfigurationError(
            f"api_key is empty or a placeholder: pass the {provider.name} API key, or pass "
            f"api_key=None and set {' or '.join(names)} (in the environment or in ./.env)."
        )
    return given
