"""The host proxy (issue 47) with a listener made here, as a confined process would send it:
what a request head gets, that a tunnel carries both ways, and that close() ends every relay
and its thread."""

from __future__ import annotations

import socket
import threading

import pytest

from zork_mcp.adapters.mcp.stdio.host_proxy import HostProxy
from zork_mcp.domain.servers.host_list import HEAD_LIMIT, host_rules


@pytest.fixture
def echo_port():
    listener = socket.create_server(("127.0.0.1", 0))

    def echo() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                while data := connection.recv(4096):
                    connection.sendall(data.upper())

    threading.Thread(target=echo, daemon=True).start()
    yield listener.getsockname()[1]
    listener.close()


@pytest.fixture
def proxied(echo_port):
    """A proxy relaying for a server that may reach the echo host alone; its address."""
    proxy = HostProxy()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener = socket.create_server(("127.0.0.1", 0))
    proxy.serve(ours, "s", host_rules([f"127.0.0.1:{echo_port}"]))
    socket.send_fds(theirs, [b"listening"], [listener.fileno()])
    address = listener.getsockname()
    listener.close()
    theirs.close()
    yield proxy, address
    proxy.close()


def _ask(address, head: bytes) -> tuple[bytes, socket.socket]:
    client = socket.create_connection(address, timeout=5)
    client.sendall(head)
    answer = b""
    while b"\r\n\r\n" not in answer:
        data = client.recv(4096)
        if not data:
            break
        answer += data
    return answer, client


def test_a_listed_host_is_tunnelled_both_ways(proxied, echo_port):
    _, address = proxied
    answer, client = _ask(address, f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\n".encode())
    with client:
        assert answer.startswith(b"HTTP/1.1 200 ")
        client.sendall(b"through")
        assert client.recv(64) == b"THROUGH"


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n", b"403"),  # not listed
        (b"GET http://127.0.0.1/ HTTP/1.1\r\n\r\n", b"405"),
        (b"\xff\xfe garbage\r\n\r\n", b"400"),
        (b"CONNECT " + b"a" * HEAD_LIMIT + b"\r\n\r\n", b"400"),  # over the head's limit
        (b"CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n", b"400"),  # no port
    ],
)
def test_anything_else_gets_an_http_refusal_and_the_connection_closes(proxied, head, status):
    _, address = proxied
    answer, client = _ask(address, head)
    with client:
        assert answer.split(b" ")[1] == status, answer
        assert b"zork-mcp sandbox: " in answer + client.recv(4096)
        assert client.recv(64) == b""  # closed


def test_close_ends_every_tunnel_and_the_thread(proxied, echo_port):
    proxy, address = proxied
    _, client = _ask(address, f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\n".encode())
    proxy.close()
    with client:
        assert client.recv(64) == b""
    assert not any(t.name == "mcp-host-proxy" for t in threading.enumerate())
    with pytest.raises(OSError):
        socket.create_connection(address, timeout=1)  # its listener is closed


def test_a_process_that_ends_before_sending_its_listener_costs_nothing():
    proxy = HostProxy()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    stop = proxy.serve(ours, "s", ())
    theirs.close()
    stop()
    proxy.close()
    assert not any(t.name == "mcp-host-proxy" for t in threading.enumerate())


def test_a_process_that_ends_mid_tunnel_ends_its_relay_quietly(proxied, echo_port, caplog):
    proxy, address = proxied
    _, client = _ask(address, f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\n".encode())
    client.close()  # its side gone, the host's still open
    proxy.close()
    assert not [record for record in caplog.records if record.name == "asyncio"]
