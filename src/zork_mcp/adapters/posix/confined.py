"""Run a command confined: `python -m zork_mcp.adapters.posix.confined RULESET NETWORK --
COMMAND ARGS...` confines itself, then execs COMMAND in its place (same pid, environment,
descriptors and process group). Standard library only, so a spawned server's start pays
~30 ms for it. A command that is not found exits 127, as a shell.

RULESET: the descriptor of the Landlock ruleset it inherited (built by its parent,
`landlock.build_ruleset`), or `-` for none (a kernel without Landlock).
NETWORK: `open` (the host's network); `isolated` (a network namespace of its own, loopback
alone); or `proxied:FD:PORT`, isolated with a listener on 127.0.0.1:PORT sent over the unix
socket FD to the proxy (`network_namespace.isolate`).

`confine_self` is the one way a server process confines itself, here and in a forked child
of the fork server (`zygote.run_server`).
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from zork_mcp.adapters.posix.landlock import enforce
from zork_mcp.adapters.posix.network_namespace import isolate

NOT_FOUND, CANNOT_RUN, NOT_CONFINED = 127, 126, 125
USAGE = "usage: confined RULESET_FD|- open|isolated|proxied:FD:PORT -- COMMAND [ARGS...]"


def main(argv: list[str]) -> NoReturn:
    if len(argv) < 4 or argv[2] != "--":
        print(USAGE, file=sys.stderr)
        raise SystemExit(2)
    ruleset, network, command = argv[0], argv[1], argv[3:]
    try:
        _confine(ruleset, network)
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


def _confine(ruleset: str, network: str) -> None:
    """The launcher's arguments read (ValueError: not as USAGE says), then confine_self."""
    kind, *proxy = network.split(":")
    channel, port = (int(proxy[0]), int(proxy[1])) if kind == "proxied" else (None, 0)
    confine_self(None if ruleset == "-" else int(ruleset), kind, channel, port)


def confine_self(ruleset: int | None, network: str, channel: int | None, port: int) -> None:
    """This process confined: its network first (once Landlock is enforced, nothing may be
    bound), then the Landlock ruleset whose descriptor it holds (None: no Landlock).
    `network`: "open", "isolated", or "proxied" (isolated, with the proxy's listener on
    127.0.0.1:`port` sent over the unix socket `channel`)."""
    if network == "isolated":
        isolate()
    elif network == "proxied" and channel is not None:
        isolate(channel, port)
    elif network != "open":
        raise ValueError(f"network {network!r}: open, isolated or proxied with a channel")
    if ruleset is not None:
        enforce(ruleset)


if __name__ == "__main__":
    main(sys.argv[1:])
