"""Where the app prints: a terminal as wide as it is, with colour; a pipe, a file or
`--plain` without colour, laid out for 80 columns, or for `$COLUMNS` when the user sets it
(rich would otherwise take the width of whichever of stdin, stdout or stderr is a
terminal, so `eval report > file` came out as wide as the window it was typed in)."""

from __future__ import annotations

import os

from rich.console import Console

PLAIN_WIDTH = 80


def screen(*, plain: bool = False, stderr: bool = False) -> Console:
    """The console for standard output (or `stderr`): the terminal's, unless `plain` or
    it is not one."""
    console = Console(stderr=stderr)
    if console.is_terminal and not plain:
        return console
    return Console(stderr=stderr, width=plain_width(), force_terminal=False)


def plain_width() -> int:
    """`$COLUMNS` if it is a width, else 80."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PLAIN_WIDTH
