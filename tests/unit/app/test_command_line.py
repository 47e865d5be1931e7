"""The command a user is told to run next is the one they started, as they typed it."""

from __future__ import annotations

import os
import subprocess
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


# Imported at start-up (site.py), so the app's first import meets a Ctrl-C where a real one
# often lands: inside code that exec() runs, as dataclasses and namedtuples make their methods.
INTERRUPTED_IN_EXEC = """\
import builtins
real_import = builtins.__import__
def ctrl_c_in_exec(name, *args, **kwargs):
    if name == "{module}":
        exec("raise KeyboardInterrupt")
    return real_import(name, *args, **kwargs)
builtins.__import__ = ctrl_c_in_exec
"""


@pytest.mark.parametrize(
    "entry", [["-m", "zork_mcp.app"], ["-c", "from zork_mcp.app.command_line import run; run()"]]
)
@pytest.mark.parametrize("module", ["zork_mcp.app.cli", "zork_mcp.app.sweep.cli"])
def test_a_ctrl_c_while_loading_exits_130_however_it_was_raised(tmp_path, entry, module):
    """CPython 3.11 marks a KeyboardInterrupt that leaves exec()'s code as unhandled even once
    it is handled, and `python -m` then died of SIGINT at exit whatever status it was given
    (`zork-mcp` loads the app, then `eval` its sweep's modules: a Ctrl-C may come in either)."""
    (tmp_path / "sitecustomize.py").write_text(INTERRUPTED_IN_EXEC.replace("{module}", module))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, *entry, "eval"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.startswith("Interrupted while loading: nothing was played or stored.")
