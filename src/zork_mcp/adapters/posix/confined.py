"""Run a command confined: `python -m zork_mcp.adapters.posix.confined RULESET NETWORK TREE
[WRITABLE...] -- COMMAND ARGS...` confines itself, then execs COMMAND in its place (same pid,
environment, descriptors and process group; or, with its tree sealed, in a child of its own,
which it relays). Standard library only, so a spawned server's start pays ~30 ms for it. A
command that is not found exits 127, as a shell.

RULESET: the descriptor of the Landlock ruleset it inherited (built by its parent,
`landlock.build_ruleset`), or `-` for none (a kernel without Landlock).
NETWORK: `open` (the host's network); `isolated` (a network namespace of its own, loopback
alone); or `proxied:FD:PORT`, isolated with a listener on 127.0.0.1:PORT sent over the unix
socket FD to the proxy (`network_namespace.connect_inside`).
TREE: `sealed` (user, mount and PID namespaces of its own: the tree read-only but the
WRITABLE paths, every process it starts ending with it; `namespaces`), or `shared` (a kernel
that lets it make none).

`confine_self` is the one way a server process confines itself, here and in a forked child
of the fork server (`zygote.run_server`).
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from zork_mcp.adapters.posix import namespaces
from zork_mcp.adapters.posix.landlock import enforce
from zork_mcp.adapters.posix.network_namespace import connect_inside

NOT_FOUND, CANNOT_RUN, NOT_CONFINED = 127, 126, 125
USAGE = (
    "usage: confined RULESET_FD|- open|isolated|proxied:FD:PORT sealed|shared [WRITABLE...] "
    "-- COMMAND [ARGS...]"
)


def main(argv: list[str]) -> NoReturn:
    if "--" not in argv or argv.index("--") < 3 or argv.index("--") == len(argv) - 1:
        print(USAGE, file=sys.stderr)
        raise SystemExit(2)
    end = argv.index("--")
    ruleset, network, tree, writable, command = *argv[:3], argv[3:end], argv[end + 1 :]
    try:
        _confine(ruleset, network, tree, writable)
    except ValueError:
        print(USAGE, file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as e:  # LandlockError, no such descriptor, no namespace
        print(f"zork-mcp: {e}; not running {command[0]} unconfined", file=sys.stderr)
        raise SystemExit(NOT_CONFINED) from e
    try:
        os.execvp(command[0], command)
    except FileNotFoundError:
        print(f"zork-mcp: {command[0]}: command not found", file=sys.stderr)
        raise SystemExit(NOT_FOUND) from None
    except OSError as e:
        print(f"zork-mcp: {command[0]}: {e.strerror}", file=sys.stderr)
        raise SystemExit(CANNOT_RUN) from None


def _confine(ruleset: str, network: str, tree: str, writable: list[str]) -> None:
    """The launcher's arguments read (ValueError: not as USAGE says), then confine_self."""
    kind, *proxy = network.split(":")
    channel, port = (int(proxy[0]), int(proxy[1])) if kind == "proxied" else (None, 0)
    if tree not in ("sealed", "shared") or (writable and tree == "shared"):
        raise ValueError(f"tree {tree!r}: sealed (then its writable paths) or shared")
    sealed = writable if tree == "sealed" else None
    confine_self(None if ruleset == "-" else int(ruleset), kind, channel, port, sealed)


def confine_self(
    ruleset: int | None,
    network: str,
    channel: int | None,
    port: int,
    writable: list[str] | None = None,
    *,
    entered: bool = False,
) -> None:
    """This process confined, in this order: its namespaces (once Landlock is enforced,
    nothing may be mounted or bound), its network, its tree sealed and its capabilities
    dropped, then (in a child of its own, when sealed: `namespaces.become_init`) the
    Landlock ruleset whose descriptor it holds (None: no Landlock), which grants its own
    /proc entry, so it is enforced by the process that runs the server.
    `network`: "open", "isolated", or "proxied" (isolated, with the proxy's listener on
    127.0.0.1:`port` sent over the unix socket `channel`). `writable`: the paths its tree
    leaves writable, sealed; None: no namespaces but the network's. `entered`: it is already
    the first process of user, mount and PID namespaces of its own (a fork server's spare
    made them ahead of its request: `zygote.Spare`)."""
    if network not in ("open", "isolated") and not (network == "proxied" and channel is not None):
        raise ValueError(f"network {network!r}: open, isolated or proxied with a channel")
    isolated, sealed = network != "open", writable is not None
    if isolated or (sealed and not entered):
        namespaces.unshare(sealed=sealed and not entered, network=isolated, user=not entered)
    if isolated:
        connect_inside(channel if network == "proxied" else None, port)
    if writable is not None:
        namespaces.seal_tree(writable)
    if sealed or isolated:
        namespaces.drop_capabilities()
    if sealed and not entered:
        namespaces.become_init()
    if ruleset is not None:
        enforce(ruleset)


if __name__ == "__main__":
    main(sys.argv[1:])
