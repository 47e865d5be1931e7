"""A server's host list (issue 47): how its entries are read, which CONNECT requests they
let through, and what the proxy answers to everything else. The request head is untrusted
(the server wrote it): any bytes get a target or an HTTP refusal, never an exception."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.facts.confinement_notices import sandbox_notices
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.servers.confinement import (
    DEFAULT_SANDBOX,
    Network,
    Sandbox,
    ServerFacts,
    server_confinement,
)
from zork_mcp.domain.servers.host_list import (
    PROXY_PORT,
    PROXY_URL,
    Connect,
    HostRule,
    HostSyntaxError,
    Refusal,
    allowed,
    connect_request,
    host_rules,
    proxy_environment,
)

labels = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
names = st.lists(labels, min_size=1, max_size=4).map(".".join)
addresses = st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).map(str)
ports = st.integers(1, 65535)


def written(host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown if port is None else f"{shown}:{port}"


@given(st.one_of(names, addresses), st.one_of(st.none(), ports))
def test_an_entry_reads_back_as_written_and_allows_exactly_its_host_and_port(host, port):
    rule = HostRule.parse(written(host, port))
    assert HostRule.parse(str(rule)) == rule
    expected_port = 443 if port is None else port
    canonical = (
        str(ipaddress.ip_address(host))
        if ":" in host or (host[0].isdigit() and _ip(host))
        else host
    )
    assert rule.allows(canonical, expected_port)
    assert not rule.allows(canonical, expected_port % 65535 + 1)
    assert not rule.allows("other-" + canonical.replace(":", "-"), expected_port)


def _ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@given(names.filter(lambda name: not _ip(name)), labels)
def test_a_wildcard_allows_the_names_beneath_its_domain_only(domain, label):
    rule = HostRule.parse(f"*.{domain}")
    assert rule.allows(f"{label}.{domain}", 443)
    assert not rule.allows(domain, 443)  # not the domain itself
    assert not rule.allows(f"{label}{domain}", 443)  # nor a name that merely ends alike
    assert not rule.allows(f"{label}.{domain}", 444)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("a b", "not a host name"),
        ("x:0", "a port is 1 to 65535"),
        ("x:65536", "a port is 1 to 65535"),
        ("x:²", "a port is 1 to 65535"),
        ("::1", "in brackets"),
        ("[::1", "[address]:port"),
        ("*.10.0.0.1", "a wildcard goes before a domain"),
        ("-x.com", "not a host name"),
        ("a" * 64 + ".com", "not a host name"),
    ],
)
def test_a_bad_entry_says_what_is_wrong(entry, says):
    with pytest.raises(HostSyntaxError, match=says.replace("[", r"\[")):
        HostRule.parse(entry)


def test_names_are_compared_as_dns_does_case_and_trailing_dot_aside():
    (rule,) = host_rules(["Registry.NPMJS.org."])
    assert str(rule) == "registry.npmjs.org"
    request = connect_request(b"CONNECT REGISTRY.npmjs.org.:443 HTTP/1.1\r\n\r\n")
    assert request == Connect("registry.npmjs.org", 443)
    assert allowed([rule], request.host, request.port)


@given(st.binary(max_size=300))
def test_any_request_head_gets_a_target_or_an_http_refusal(head):
    answer = connect_request(head)
    if isinstance(answer, Connect):
        assert head.startswith(b"CONNECT ") and 1 <= answer.port <= 65535
        HostRule.parse(written(answer.host, answer.port))  # a host the proxy may dial
        return
    response = answer.response()
    status_line, _, rest = response.partition(b"\r\n")
    assert status_line == f"HTTP/1.1 {answer.status} {answer.reason}".encode()
    head_part, _, body = rest.partition(b"\r\n\r\n")
    assert f"Content-Length: {len(body)}".encode() in head_part
    assert 400 <= answer.status < 500


@given(st.text(max_size=40), ports)
def test_only_connect_is_relayed(method, port):
    head = f"{method} http://example.com:{port}/ HTTP/1.1\r\n\r\n".encode()
    answer = connect_request(head)
    assert isinstance(answer, Refusal) or method == "CONNECT"


def test_plain_http_is_refused_with_why():
    answer = connect_request(b"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")
    assert isinstance(answer, Refusal) and answer.status == 405
    assert "only HTTPS is relayed" in answer.text


def test_the_proxy_is_named_to_every_client_and_nothing_bypasses_it():
    env = proxy_environment({"NO_PROXY": "*", "no_proxy": "*", "PATH": "/bin"})
    assert "NO_PROXY" not in env and "no_proxy" not in env and env["PATH"] == "/bin"
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        assert env[name] == PROXY_URL == f"http://127.0.0.1:{PROXY_PORT}"
    assert env["NODE_USE_ENV_PROXY"] == "1"


@pytest.mark.parametrize(
    ("sandbox", "namespaces", "network", "ports"),
    [
        (DEFAULT_SANDBOX, True, Network.OPEN, (443, 80)),
        (Sandbox(connect_ports=(8080,)), True, Network.OPEN, (8080,)),
        (Sandbox(hosts=("example.com",)), True, Network.PROXIED, (PROXY_PORT,)),
        (Sandbox(hosts=()), True, Network.ISOLATED, ()),
        # a host list the kernel cannot keep (no user namespaces): no TCP at all
        (Sandbox(hosts=("example.com",)), False, Network.OPEN, ()),
    ],
)
def test_a_host_list_decides_the_network_and_the_ports(sandbox, namespaces, network, ports):
    facts = ServerFacts(home="/h", cwd="/w", python_paths=(), own_folders=(), namespaces=namespaces)
    rules = server_confinement(facts, sandbox)
    assert (rules.network, rules.connect_ports) == (network, ports)


def test_ports_and_hosts_together_are_refused():
    with pytest.raises(ValueError, match="both connect_ports and hosts"):
        Sandbox(hosts=("example.com",), connect_ports=(443,))


@pytest.mark.parametrize("namespaces", [True, False])
def test_a_kernel_without_user_namespaces_is_said_for_the_servers_with_a_host_list(namespaces):
    events = sandbox_notices(
        enabled=True,
        unconfined_servers=(),
        servers=("npm", "r"),
        abi=7,
        host_listed=("npm",),
        namespaces=namespaces,
    )
    if namespaces:
        assert events == []
        return
    loose, cut_off = events
    assert loose.type is cut_off.type is EventType.MCP_SANDBOX_DEGRADED
    assert loose.fields["servers"] == ["npm", "r"] and loose.fields["namespaces"] is False
    assert "file metadata outside its folders and processes that outlive it" in loose.message
    assert cut_off.fields["servers"] == ["npm"] and "no network" in cut_off.message
