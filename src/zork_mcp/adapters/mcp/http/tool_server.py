"""The ToolServer port over remote MCP servers speaking Streamable HTTP (issue 16).

Every session is a fresh MCP session per server (requirement 3 as stdio keeps it): connect,
settle the era (`era.py`), list tools, then calls. In the handshake era closing it ends the
session on the server (DELETE); in the stateless era there is no session to end.
Header values go into requests only: never into logs, events or error text.
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError as SdkMCPError

from zork_mcp.adapters.mcp.assembly import Connected, McpToolServer
from zork_mcp.adapters.mcp.client_requests import roots_callback
from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.era import Eras
from zork_mcp.adapters.mcp.http.http_status import StatusWatch
from zork_mcp.adapters.mcp.http.readable_answers import ReadableAnswers
from zork_mcp.adapters.mcp.listing import list_tools
from zork_mcp.adapters.mcp.sdk import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
from zork_mcp.adapters.mcp.sdk_errors import root_cause
from zork_mcp.adapters.mcp.server_session import ServerSession
from zork_mcp.adapters.mcp.session import McpSession
from zork_mcp.domain.errors import MCPServerStartupError, ZorkMcpError
from zork_mcp.domain.servers.roots import Root
from zork_mcp.domain.servers.server_config import MCPHttpServerConfig
from zork_mcp.domain.servers.server_places import roots_of
from zork_mcp.domain.servers.startup_timeout import startup_timeout

# The SDK caps one server-sent event (one JSON-RPC message) at 1 MB; a tool may answer more.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class _Remote:
    name: str
    config: MCPHttpServerConfig
    headers: Mapping[str, str]


class HttpServerSession(ServerSession):
    """A ServerSession whose HTTP failures (5xx, a lost session, 401/403) mean what they say."""

    def __init__(self, remote: _Remote, watch: StatusWatch, *args: Any) -> None:
        super().__init__(*args)
        self._remote = remote
        self._watch = watch

    def _translate(self, error: SdkMCPError, tool: str, timeout: float) -> ZorkMcpError:
        problem = _problem(self._remote, self._watch)
        if problem is not None:
            return self._broke(problem)
        return super()._translate(error, tool, timeout)


class McpHttpToolServer:
    """Connects to every configured remote server per session; tools are `server.tool`."""

    def __init__(
        self,
        servers: Mapping[str, MCPHttpServerConfig],
        *,
        startup_timeout_seconds: float | None = None,
        system_env: Mapping[str, str] | None = None,
    ) -> None:
        """Unset ${VAR}s in headers are an MCPConfigError here, before any turn. Each server
        is named the roots its entry lists (none: the client declares no roots)."""
        if not servers:
            raise ValueError("McpHttpToolServer needs at least one server")
        env = os.environ if system_env is None else system_env
        self._remotes = [
            _Remote(name, config, config.resolved_headers(env, name))
            for name, config in servers.items()
        ]
        self._startup_timeout = startup_timeout(startup_timeout_seconds)  # None: the default
        self._eras = Eras({name: config.protocol for name, config in servers.items()})

    @property
    def server_names(self) -> tuple[str, ...]:
        return tuple(remote.name for remote in self._remotes)

    def open_session(
        self, servers: Collection[str] | None = None
    ) -> AbstractAsyncContextManager[McpSession]:
        return McpToolServer([self]).open_session(servers)

    async def connect(self, stack: AsyncExitStack, servers: Sequence[str]) -> Connected:
        connected = Connected()
        for remote in (remote for remote in self._remotes if remote.name in servers):
            try:
                connected.sessions.append(await self._connect(stack, remote))
            except MCPServerStartupError as error:
                connected.failures.append(error)
        return connected

    async def _connect(self, stack: AsyncExitStack, remote: _Remote) -> ServerSession:
        watch = StatusWatch()
        try:
            async with asyncio.timeout(self._startup_timeout):
                connection = _connection(remote, watch, self._eras, roots_of(remote.config))
                return await stack.enter_async_context(connection)
        except Exception as error:
            self._eras.forget(remote.name)
            raise _startup_error(remote, watch, root_cause(error), self._startup_timeout) from None

    def warm_up(self) -> None:
        """Nothing to start ahead: a remote server is already running."""

    def close(self) -> None:
        """Nothing outlives a session; here for symmetry with the stdio adapter."""

    def __enter__(self) -> McpHttpToolServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@asynccontextmanager
async def _connection(
    remote: _Remote, watch: StatusWatch, eras: Eras, roots: Sequence[Root]
) -> AsyncIterator[ServerSession]:
    """The era settled (initialize, or discover), then list_tools (property 8); the body's
    errors pass through unwrapped."""
    client = httpx2.AsyncClient(
        headers=dict(remote.headers),
        timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        transport=ReadableAnswers(
            httpx2.AsyncHTTPTransport(verify=_tls(), proxy=proxy_for(remote.config.url))
        ),
        event_hooks={"response": [watch]},
    )
    try:
        async with (
            client,
            streamable_http_client(
                remote.config.url, http_client=client, max_sse_event_size=MAX_MESSAGE_BYTES
            ) as (read, write),
            ZorkClientSession(read, write, list_roots_callback=roots_callback(roots)) as session,
        ):
            protocol = await eras.speak(remote.name, session)
            listing = await list_tools(session, remote.name, remote.config.tool_filter)
            yield HttpServerSession(remote, watch, protocol, session, listing)
    except BaseExceptionGroup as group:
        raise root_cause(group) from None


def proxy_for(url: str) -> str | None:
    """The proxy the environment names for `url` (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and
    NO_PROXY, any case): what httpx would pick itself, had the client no transport of ours."""
    parts = urllib.parse.urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every session: building one loads the CA bundle (~0.2 s)."""
    return httpx2.create_ssl_context()


def _problem(remote: _Remote, watch: StatusWatch) -> str | None:
    return watch.problem(remote.name, remote.config.url, remote.config.header_sources())


def _startup_error(
    remote: _Remote, watch: StatusWatch, cause: BaseException, timeout: float
) -> MCPServerStartupError:
    where = f"server '{remote.name}' at {remote.config.url}"
    reason = _problem(remote, watch)
    if reason is None and isinstance(cause, TimeoutError):
        reason = f"{where} did not finish initialize and list_tools within {timeout:g} s"
    if reason is None and isinstance(cause, httpx2.ConnectError):
        reason = f"{where} refused the connection: is it running, and is the url right?"
    if reason is None:
        reason = f"{where} could not be initialized: {type(cause).__name__}: {_safe(cause)}"
    return MCPServerStartupError(reason, servers=(remote.name,))


def _safe(cause: BaseException) -> str:
    """SDK and httpx messages name urls and codes, never request headers."""
    return str(cause)[:300]
