"""What a confined process may reach: the folders it may read, those it may write, the TCP
ports it may connect to (issue 47). Pure: the adapter gathers the facts (the home folder,
Python's paths, the server's own folder) and enforces the result with Landlock.

A third-party MCP server reads the system and toolchain folders, its own code and the
package caches it needs. It writes only a private folder of its own (its TMPDIR), its
launcher's cache (`npx`'s ~/.npm, `uvx`'s ~/.cache/uv), the folders its command line names
(the filesystem server's ~/notes; never the working or home folder, nor one that holds the
agent's) and what its entry adds, which for an episode is its folder there and the roots it
asks for (domain/servers/server_places.py). It connects to TCP ports 443 and 80 only (any
host: Landlock filters ports, not addresses), or, when its entry lists `hosts`, only to
those, through a proxy, from a network namespace of its own (domain/servers/host_list.py).
It never reads the agent's working folder's files (`.env`), dotfiles of the home folder
(`.ssh`, `.aws`, `.config`, `.netrc`, shell history), nor other processes' `/proc` entries.
Where the kernel lets it make namespaces of its own, its tree is also sealed (`sealed`:
read-only but what it may write, so no metadata changes outside that) and every process it
starts ends with it (issue 66; adapters/posix/namespaces.py).
A server's `"sandbox"` entry widens or narrows that; `"sandbox": false` and
`[tool.zorkgpt.mcp] sandbox = false` turn it off, which an event then says.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from zork_mcp.domain.servers.confinement_rules import (
    DEVICES_READ,
    DEVICES_WRITE,
    NO_PORTS,
    SYSTEM_READ,
    SYSTEM_WIDE_PROC,
    Confinement,
    Network,
    outside,
    unique,
)
from zork_mcp.domain.servers.host_list import PROXY_PORT, HostSyntaxError, host_rules

FILES, NETWORK, SCOPES = "files", "TCP connections", "signals and abstract unix sockets"
# What a server's own namespaces deny (adapters/posix/namespaces.py), left when it can make none
NAMESPACED = ("file metadata outside its folders", "processes that outlive it")
NET_ABI, SCOPE_ABI = 4, 6  # the Landlock ABI that first filters TCP ports; that scopes


def unenforced(abi: int, *, scoped: bool = True) -> tuple[str, ...]:
    """What a kernel offering Landlock ABI `abi` (0: none, or not Linux) cannot enforce."""
    if abi < 1:
        return (FILES, NETWORK, SCOPES)
    missing = []
    if abi < NET_ABI:
        missing.append(NETWORK)
    if scoped and abi < SCOPE_ABI:
        missing.append(SCOPES)
    return tuple(missing)


# Beneath the home folder: the toolchains a server is commonly run with, and the caches
# `npx -y` and `uvx` fill on a first run. Not ~/.cache as a whole: tokens live there too
# (huggingface/token, for one).
HOME_READ = (
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".local/bin",
    ".local/lib",
    ".local/share/uv",
    ".local/share/pnpm",
    ".cargo/bin",
    ".rustup/toolchains",
)
# The cache a launcher fills, the one folder of the home folder a server may write (so what
# one server keeps there is seen by every server run the same way: the docs say which keep
# state there). Made for it before the start when missing: confined, it may write in the
# folder but not make it in the home folder.
LAUNCHER_CACHES = {
    "npx": ".npm",
    "npm": ".npm",
    "pnpm": ".npm",
    "uvx": ".cache/uv",
    "uv": ".cache/uv",
}
DEFAULT_CONNECT_PORTS = (443, 80)  # https and http to any host; DNS is UDP, never filtered


class Sandbox(BaseModel):
    """A server entry's `"sandbox": {"read": [...], "write": [...], "connect_ports": [...],
    "hosts": [...]}`: `read` and `write` add absolute folders (or files) to the default;
    `connect_ports` replaces the default ports (`[]`: no TCP connection at all); `hosts`
    instead lets it reach only those hosts, over HTTPS through a proxy (`[]`: no network)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    connect_ports: tuple[int, ...] | None = None
    hosts: tuple[str, ...] | None = None

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, hosts: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if hosts is None:
            return None
        try:
            return tuple(str(rule) for rule in host_rules(hosts))
        except HostSyntaxError as e:
            raise ValueError(f"sandbox hosts: {e}") from None

    @model_validator(mode="after")
    def _ports_or_hosts(self) -> Sandbox:
        if self.hosts is not None and self.connect_ports is not None:
            raise ValueError(
                "sandbox has both connect_ports and hosts: give one (a host's port goes in "
                'its entry, "example.com:8443")'
            )
        return self

    def network(self, *, namespaces: bool) -> Network:
        """How its connections are confined, on a kernel that does (or does not) let a
        process make a network namespace of its own."""
        if self.hosts is None:
            return Network.OPEN
        if not namespaces or not self.hosts:  # a host list that cannot be kept: no network
            return Network.ISOLATED if namespaces else Network.OPEN
        return Network.PROXIED

    @field_validator("read", "write")
    @classmethod
    def _absolute(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        for path in paths:
            if not path.startswith(("/", "~/")):
                raise ValueError(
                    f"sandbox path {path!r} is relative: write it absolute (/...) or from "
                    "the home folder (~/...)"
                )
        return paths

    @field_validator("connect_ports")
    @classmethod
    def _ports(cls, ports: tuple[int, ...] | None) -> tuple[int, ...] | None:
        for port in ports or ():
            if not 1 <= port <= 65535:
                raise ValueError(f"sandbox connect_ports has {port}: a TCP port is 1 to 65535")
        return ports


DEFAULT_SANDBOX = Sandbox()


@dataclass(frozen=True)
class ServerFacts:
    """What the policy needs to know of one server process's surroundings."""

    home: str
    cwd: str
    python_paths: tuple[str, ...]  # the interpreter's prefixes and sys.path folders
    own_folders: tuple[str, ...]  # the server's module, script or package folders
    private_folder: str | None = None  # made for one process, removed when it ends: its TMPDIR
    launcher_cache: str | None = None  # npx's ~/.npm, uvx's ~/.cache/uv (launcher_cache)
    arg_folders: tuple[str, ...] = ()  # existing folders its command line names (its data)
    pid_folder: str | None = None  # its own /proc/<pid>, when known before it runs
    lists_cwd: bool = False  # its module is found in the working folder (see `listed`)
    namespaces: bool = True  # the kernel lets it make namespaces of its own (and seal its tree)


def server_confinement(facts: ServerFacts, sandbox: Sandbox = DEFAULT_SANDBOX) -> Confinement:
    """The default policy for a stdio MCP server, with its entry's `sandbox` over it."""
    home = facts.home
    guarded = (facts.cwd, home)
    read = [
        *SYSTEM_READ,
        *SYSTEM_WIDE_PROC,
        *DEVICES_READ,
        *outside(facts.python_paths, guarded),
        *facts.own_folders,
        *(f"{home}/{folder}" for folder in HOME_READ),
        *_expanded(sandbox.read, home),
    ]
    if facts.pid_folder is not None:
        read.append(facts.pid_folder)
    given = _expanded(sandbox.write, home)
    write = [
        *([facts.private_folder] if facts.private_folder else []),
        *DEVICES_WRITE,
        *([facts.launcher_cache] if facts.launcher_cache else []),
        *given,
        *_not_holding(facts.arg_folders, (*guarded, "/", *given)),
    ]
    network = sandbox.network(namespaces=facts.namespaces)
    # Python's import lists each sys.path folder: a `python -m` server found in the working
    # folder needs its names listed; no file there is read but its own package's.
    listed = (facts.cwd,) if facts.lists_cwd else ()
    ports = _ports(sandbox, network)
    return Confinement(
        unique(read),
        unique(write),
        ports,
        listed=listed,
        network=network,
        sealed=facts.namespaces,
    )


def _ports(sandbox: Sandbox, network: Network) -> tuple[int, ...]:
    """The TCP ports it may connect to: with a host list, only its proxy's (in its own
    namespace), or none when that list cannot be kept on the host's network."""
    if network is Network.PROXIED:
        return (PROXY_PORT,)
    if sandbox.hosts is not None:
        return NO_PORTS
    return DEFAULT_CONNECT_PORTS if sandbox.connect_ports is None else sandbox.connect_ports


def launcher_cache(command: str, home: str) -> str | None:
    """The cache folder `command`'s launcher (npx, uvx, ...) fills, or None."""
    folder = LAUNCHER_CACHES.get(PurePosixPath(command).name)
    return f"{home}/{folder}" if folder else None


def _not_holding(folders: Iterable[str], guarded: Sequence[str]) -> list[str]:
    """`folders` minus any that is or holds a guarded one: a folder named on a server's
    command line (the filesystem server's ~/notes) is the user's gift, but never the working
    folder, the home folder or a folder that holds the agent's (its episode's) own."""
    kept = []
    for path in folders:
        folder = PurePosixPath(path)
        inner = (PurePosixPath(g) for g in guarded)
        if folder.is_absolute() and not any(folder == g or folder in g.parents for g in inner):
            kept.append(path)
    return kept


def _expanded(paths: Iterable[str], home: str) -> list[str]:
    return [f"{home}/{path[2:]}" if path.startswith("~/") else path for path in paths]
