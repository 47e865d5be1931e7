"""Run a command confined: `python -m zork_mcp.adapters.posix.confined FD -- COMMAND ARGS...`
restricts itself with Landlock to the ruleset whose file descriptor FD it inherited (built by
its parent, `landlock.build_ruleset`), then execs COMMAND in its place (same pid,
environment, descriptors and process group). Standard library only, so a spawned server's
start pays ~30 ms for it. A command that is not found exits 127, as a shell.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from zork_mcp.adapters.posix.landlock import enforce

NOT_FOUND, CANNOT_RUN, NOT_CONFINED = 127, 126, 125


def main(argv: list[str]) -> NoReturn:
    if len(argv) < 3 or argv[1] != "--" or not argv[0].isdigit():
        print("usage: confined RULESET_FD -- COMMAND [ARGS...]", file=sys.stderr)
        raise SystemExit(2)
    ruleset, command = int(argv[0]), argv[2:]
    try:
        enforce(ruleset)
    except OSError as e:  # LandlockError, or no such descriptor
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


if __name__ == "__main__":
    main(sys.argv[1:])
