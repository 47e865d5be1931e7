"""An MCP stdio server in plain JSON-RPC whose tools each try one escape from its sandbox and
report what they got (issue 47): a tool that escaped answers "ESCAPED: ...", a denied one a
tool error "denied: <errno name>". Fast to start: no mcp import. It exits when stdin closes.

Tools: `read` (a file's first bytes; `/proc/<pid>/environ` too), `write` (a new file),
`connect` (TCP to host:port, 127.0.0.1 by default), `udp` (a datagram to 127.0.0.1:port),
`proxy` (a CONNECT to host:port through the proxy HTTPS_PROXY names, then what the far end
says first), `signal` (os.kill(pid, sig)), `ptrace` (PTRACE_ATTACH, then detach), `mknod`
(a char or block device node at a path, then a read through it), `open` (a read through a
device node already there), `chmod`, `chown`, `utime` and `setxattr` (of a path), `daemon`
(a double fork and setsid: the daemon writes its pid to a file, then sleeps for ever),
and `parent` (its parent's pid, from /proc/self/status).
"""

import ctypes
import errno
import os
import socket
import time

from plain_stdio_server import serve

PTRACE_ATTACH, PTRACE_DETACH = 16, 17
TOOLS = ["read", "write", "connect", "udp", "proxy", "signal", "ptrace", "mknod", "open",
         "chmod", "chown", "utime", "setxattr", "daemon", "parent"]  # fmt: skip


def _read(args: dict) -> str:
    with open(args["path"], "rb") as file:
        return f"ESCAPED: {file.read(200)!r}"


def _write(args: dict) -> str:
    with open(args["path"], "w") as file:
        file.write("escaped")
    return f"ESCAPED: wrote {args['path']}"


def _connect(args: dict) -> str:
    host = args.get("host", "127.0.0.1")
    with socket.create_connection((host, int(args["port"])), timeout=2):
        return f"ESCAPED: connected to {host}:{args['port']}"


def _udp(args: dict) -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.sendto(b"escaped", ("127.0.0.1", int(args["port"])))
    return "sent (whether it arrived is the listener's to say)"


def _proxy(args: dict) -> str:
    """A tunnel through the proxy: "tunnel: <first bytes>", or denied with its status."""
    proxy = os.environ.get("HTTPS_PROXY", "")
    if not proxy.startswith("http://"):
        raise OSError(errno.ENOENT, f"no proxy in HTTPS_PROXY ({proxy!r})")
    host, port = proxy.removeprefix("http://").rstrip("/").rsplit(":", 1)
    target, blank = args["target"], b"\r\n\r\n"
    with socket.create_connection((host, int(port)), timeout=5) as tunnel:
        tunnel.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        head = b""
        while blank not in head:
            data = tunnel.recv(4096)
            if not data:
                break
            head += data
        status, _, rest = head.partition(blank)
        if b" 200 " not in status.split(b"\r\n", 1)[0]:
            raise OSError(errno.EACCES, (status + b" " + rest).decode())
        rest = rest or tunnel.recv(100)
        return f"tunnel: {rest.decode()}"


def _signal(args: dict) -> str:
    os.kill(int(args["pid"]), int(args["sig"]))
    return f"ESCAPED: signal {args['sig']} sent to {args['pid']}"


def _ptrace(args: dict) -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    pid = int(args["pid"])
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    libc.ptrace(PTRACE_DETACH, pid, None, None)
    return f"ESCAPED: attached to {pid}"


def _mknod(args: dict) -> str:
    """A device node in a folder it may write: char 1:11 is the kernel log (/dev/kmsg)."""
    kind = 0o060000 if args.get("block") else 0o020000
    os.mknod(args["path"], 0o600 | kind, os.makedev(args.get("major", 1), args.get("minor", 11)))
    fd = os.open(args["path"], os.O_RDONLY | os.O_NONBLOCK)
    try:
        return f"ESCAPED: {os.read(fd, 200)!r}"
    finally:
        os.close(fd)


def _open(args: dict) -> str:
    fd = os.open(args["path"], os.O_RDONLY | os.O_NONBLOCK)
    try:
        return f"ESCAPED: {os.read(fd, 200)!r}"
    finally:
        os.close(fd)


def _chmod(args: dict) -> str:
    os.chmod(args["path"], 0o666)
    return f"ESCAPED: {args['path']} made 0666"


def _chown(args: dict) -> str:
    os.chown(args["path"], 65534, 65534)
    return f"ESCAPED: {args['path']} given to nobody"


def _utime(args: dict) -> str:
    os.utime(args["path"], (0, 0))
    return f"ESCAPED: {args['path']} dated 1970"


def _setxattr(args: dict) -> str:
    os.setxattr(args["path"], "user.escaped", b"1")
    return f"ESCAPED: {args['path']} has user.escaped"


def _daemon(args: dict) -> str:
    """A daemon as a shell's `setsid -f` or a double fork makes it: out of this process's
    session and group, its parent gone. It writes its pid as /proc names it (the agent's)."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(args["path"], "w") as file:
                file.write(os.readlink("/proc/self"))
            while True:
                time.sleep(60)
        os._exit(0)
    return "daemon started"


def _parent(args: dict) -> str:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("PPid:"):
                return line.split()[1]
    return "?"


ACTIONS = {
    "read": _read,
    "write": _write,
    "connect": _connect,
    "udp": _udp,
    "proxy": _proxy,
    "signal": _signal,
    "ptrace": _ptrace,
    "mknod": _mknod,
    "open": _open,
    "chmod": _chmod,
    "chown": _chown,
    "utime": _utime,
    "setxattr": _setxattr,
    "daemon": _daemon,
    "parent": _parent,
}


def call(name: str, args: dict) -> dict:
    try:
        text, failed = ACTIONS[name](args), False
    except OSError as e:
        text, failed = f"denied: {errno.errorcode.get(e.errno or 0, e.errno)} {e}", True
    return {"content": [{"type": "text", "text": text}], "isError": failed}


if __name__ == "__main__":
    serve("escape-attempts", [{"name": n, "inputSchema": {"type": "object"}} for n in TOOLS], call)
