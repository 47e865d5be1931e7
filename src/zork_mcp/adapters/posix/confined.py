"""Run a command confined: `python -m zork_mcp.adapters.posix.confined RULESET NETWORK --
COMMAND ARGS...` confines itself, then execs COMMAND in its place (same pid, environment,
descriptors and process group). Standard library only, so a spawned server's start pays
~30 ms for it. A command that is not found exits 127, as a shell.

RULESET: the descriptor of the Landlock ruleset it inherited (built by its parent,
`landlock.build_ruleset`), or `-` for none (a kernel without Landlock).
NETWORK: `open` (the host's network); `isolated` (a network namespace of its own, loopback
alone); or `proxy:FD:PORT`, isolated with a listener on 127.0.0.1:PORT sent over the unix
socket FD to the proxy (`network_namespace.isolate`).
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from zork_mcp.adapters.posix.landlock import enforce
from zork_mcp.adapters.posix.network_namespace import isolate

NOT_FOUND, CANNOT_RUN, NOT_CONFINED = 127, 126, 125
USAGE = "usage: confined RULESET_FD|- open|isolated|proxy:FD:PORT -- COMMAND [ARGS...]"


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
    """The network first: Landlock then denies the listener's bind."""
    if network == "isolated":
        isolate()
    elif network.startswith("proxy:"):
        _, channel, port = network.split(":")
        isolate(int(channel), int(port))
    elif network != "open":
        raise ValueError(network)
    if ruleset != "-":
        enforce(int(ruleset))


if __name__ == "__main__":
    main(sys.argv[1:])
