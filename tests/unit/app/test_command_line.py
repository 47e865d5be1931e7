"""The command a user is told to run next is the one they started, as they typed it."""

from __future__ import annotations

import sys

import pytest

from zork_mcp.app.command_line import program, typed

MAIN = "/home/u/zork/src/zork_mcp/app/__main__.py"  # sys.argv[0] under `python -m`


@pytest.mark.parametrize(
    ("argv0", "started", "expected"),
    [
        (MAIN, [".venv/bin/python", "-X", "dev", "-m", "zork_mcp.app", "eval"],
         [".venv/bin/python", "-X", "dev", "-m", "zork_mcp.app"]),
        (MAIN, ["python3", "-mzork_mcp.app", "eval"], [sys.executable, "-m", "zork_mcp.app"]),
        (".venv/bin/zork-mcp", ["/usr/bin/python3", ".venv/bin/zork-mcp", "eval"],
         [".venv/bin/zork-mcp"]),
        ("/usr/lib/python3/pytest", ["python", "-m", "pytest"], ["zork-mcp"]),
    ],
)  # fmt: skip
def test_the_program_is_named_as_it_was_started(monkeypatch, argv0, started, expected):
    monkeypatch.setattr(sys, "argv", [argv0, "eval"])
    monkeypatch.setattr(sys, "orig_argv", started)
    assert program() == expected


def test_a_command_is_quoted_for_a_shell(monkeypatch):
    monkeypatch.setattr(sys, "argv", [".venv/bin/zork-mcp"])
    assert typed(["eval", "--name", "my sweep"]) == ".venv/bin/zork-mcp eval --name 'my sweep'"
