"""The program's entry (`zork-mcp`, `python -m zork_mcp.app`) and the command it was started
with, as typed, for what it tells its user to run next.

The app is imported inside `run`: a Ctrl-C while it loads (seconds on a slow machine) ends
the program with the interrupt's status and a sentence, as at any later moment, not with a
traceback. Only the standard library is imported before that.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

INTERRUPTED = 130  # the status a shell gives a program Ctrl-C ended (128 + SIGINT)


def run() -> None:
    try:
        from zork_mcp.app.cli import main
    except KeyboardInterrupt:
        interrupted_while_loading(sys.argv[1:])
    sys.exit(main())


def interrupted_while_loading(argv: Sequence[str]) -> NoReturn:
    """Ctrl-C before the command began: say so, and how to begin it, and end with the
    interrupt's status.

    Ended straight by the OS: a KeyboardInterrupt that left code exec() ran (dataclasses and
    namedtuples make their methods so, as modules load) marks CPython 3.11 as ended by an
    unhandled Ctrl-C even once handled, and `python -m` then kills itself with SIGINT at
    exit (the rule cpython#11862 added), whatever status it was given. Nothing has begun
    that needs the interpreter's clean-up."""
    print(
        f"Interrupted while loading: nothing was played or stored. To begin: {typed(argv)}",
        file=sys.stderr,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(INTERRUPTED)


def typed(argv: Sequence[str]) -> str:
    """The command line that runs this program with `argv`, ready to paste in a shell."""
    return shlex.join([*program(), *argv])


def program() -> list[str]:
    """How this program was started: `python -m zork_mcp.app` with the interpreter and its
    options as typed, or the `zork-mcp` script's path; from Python (a test, a driver
    script), the installed `zork-mcp`."""
    name = Path(sys.argv[0]).name
    if name == "__main__.py":
        started = sys.orig_argv
        if "-m" in started:
            return started[: started.index("-m") + 2]
        return [sys.executable, "-m", "zork_mcp.app"]
    return [sys.argv[0]] if name == "zork-mcp" else ["zork-mcp"]
