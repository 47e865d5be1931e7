"""The hosts a confined server may reach (issue 47): its entry's `"sandbox": {"hosts": [...]}`,
and the one request its proxy relays, HTTP CONNECT (RFC 9110 §9.3.6). Pure: the proxy
(adapters/mcp/stdio/host_proxy.py) reads the request head and asks here what to do.

A server with a host list runs in a network namespace of its own, with only loopback: its
one way out is the proxy its environment names (HTTPS_PROXY and friends), listening on
127.0.0.1:PROXY_PORT inside that namespace and relaying from the agent. An entry is a
host name (`registry.npmjs.org`), a wildcard for the names beneath a domain
(`*.githubusercontent.com`, not the domain itself), or an address, each with `:port` when
the port is not 443.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PROXY_PORT = 3128  # inside the server's own network namespace: no other process listens there
PROXY_URL = f"http://127.0.0.1:{PROXY_PORT}"
HEAD_LIMIT = 8192  # a CONNECT request's head, in bytes
DEFAULT_PORT = 443
WILDCARD = "*."
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")
_BYPASS_VARIABLES = ("NO_PROXY", "no_proxy")


class HostSyntaxError(ValueError):
    """An entry of a host list, or a request's host, that is no host."""


@dataclass(frozen=True)
class HostRule:
    """One entry: `name` lower-case without a trailing dot (`*.` kept), and its port."""

    name: str
    port: int = DEFAULT_PORT

    @classmethod
    def parse(cls, entry: str) -> HostRule:
        host, port = _split_authority(entry, default_port=DEFAULT_PORT)
        wildcard = host.startswith(WILDCARD)
        name = canonical_host(host[len(WILDCARD) :] if wildcard else host)
        if wildcard and _is_address(name):
            raise HostSyntaxError(f"{entry!r}: a wildcard goes before a domain, not an address")
        return cls(WILDCARD + name if wildcard else name, port)

    def allows(self, host: str, port: int) -> bool:
        """Whether a CONNECT to `host` (canonical) and `port` is this entry's."""
        if port != self.port:
            return False
        if self.name.startswith(WILDCARD):
            return host.endswith(self.name[1:])
        return host == self.name

    def __str__(self) -> str:
        """As an entry is written: `parse(str(rule)) == rule`."""
        name = f"[{self.name}]" if ":" in self.name else self.name
        return name if self.port == DEFAULT_PORT else f"{name}:{self.port}"


def host_rules(entries: Iterable[str]) -> tuple[HostRule, ...]:
    return tuple(HostRule.parse(entry) for entry in entries)


def allowed(rules: Iterable[HostRule], host: str, port: int) -> bool:
    return any(rule.allows(host, port) for rule in rules)


@dataclass(frozen=True)
class Connect:
    """A CONNECT request's target, its host canonical."""

    host: str
    port: int


@dataclass(frozen=True)
class Refusal:
    """What the proxy answers instead of a tunnel: an HTTP status and a text saying why."""

    status: int
    reason: str
    text: str

    def response(self) -> bytes:
        body = f"zork-mcp sandbox: {self.text}\n".encode()
        head = (
            f"HTTP/1.1 {self.status} {self.reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        return head.encode() + body


def connect_request(head: bytes) -> Connect | Refusal:
    """The target of a request head (up to its blank line), or why it is not relayed: only
    `CONNECT host:port HTTP/1.x` is; a plain-HTTP request would need every later request
    on its connection checked too."""
    line = head.split(b"\r\n", 1)[0]
    try:
        method, target, version = line.decode("ascii").split(" ")
    except (UnicodeDecodeError, ValueError):
        return Refusal(400, "Bad Request", "a request line is METHOD TARGET HTTP/1.1")
    if method != "CONNECT":
        return Refusal(
            405, "Method Not Allowed", f"only HTTPS is relayed (CONNECT), not a plain {method}"
        )
    if not version.startswith("HTTP/1."):
        return Refusal(400, "Bad Request", f"{version!r} is not HTTP/1.x")
    try:
        host, port = _split_authority(target, default_port=None)
        return Connect(canonical_host(host), port)
    except HostSyntaxError as e:
        return Refusal(400, "Bad Request", str(e))


def refusal(server: str, request: Connect, rules: Iterable[HostRule]) -> Refusal:
    listed = ", ".join(str(rule) for rule in rules) or "none"
    return Refusal(
        403,
        "Forbidden",
        f"{request.host}:{request.port} is not in the host list of MCP server {server!r} "
        f'({listed}); add it to "sandbox": {{"hosts": [...]}} in its mcp_config.json entry',
    )


def proxy_environment(env: Mapping[str, str]) -> dict[str, str]:
    """`env` naming the proxy to every HTTP client that reads the usual variables (curl,
    Python's requests and httpx, npm; Node's own fetch with NODE_USE_ENV_PROXY, Node 24+),
    with no host let past it."""
    kept = {name: value for name, value in env.items() if name not in _BYPASS_VARIABLES}
    return {**kept, **dict.fromkeys(_PROXY_VARIABLES, PROXY_URL), "NODE_USE_ENV_PROXY": "1"}


def canonical_host(host: str) -> str:
    """`host` lower-case without its trailing dot, checked: a DNS name (RFC 1123 labels) or
    an IP address."""
    name = host.lower().removesuffix(".")
    if _is_address(name):
        return str(ipaddress.ip_address(name))
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise HostSyntaxError(f"{host!r} is not a host name or an IP address")
    return name


def _split_authority(text: str, *, default_port: int | None) -> tuple[str, int]:
    """`host:port`, `[v6]:port`, or a host alone when there is a default port."""
    host, port = text, None
    if text.startswith("["):
        close = text.find("]")
        host, rest = text[1:close], text[close + 1 :]
        if close < 0 or not _is_address(host) or rest[:1] not in ("", ":"):
            raise HostSyntaxError(f"{text!r}: an IPv6 address is written [address]:port")
        port = rest[1:] if rest else None
    elif text.count(":") == 1:
        host, port = text.split(":")
    elif ":" in text:
        raise HostSyntaxError(f"{text!r}: write an IPv6 address in brackets, [address]:port")
    if port is None:
        if default_port is None:
            raise HostSyntaxError(f"{text!r} has no port: CONNECT names host:port")
        return host, default_port
    if not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        raise HostSyntaxError(f"{text!r}: a port is 1 to 65535")
    return host, int(port)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
