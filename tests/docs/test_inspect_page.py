"""docs/inspect.md: each command it shows (`zork-mcp-inspect`, `inspect eval`) runs the
registered task, from the README's venv, with parameters the task has, and the table lists
every parameter of the task."""

from __future__ import annotations

import inspect as python_inspect
import itertools
import re
import shlex

import pytest

from tests.support.paths import ROOT

pytest.importorskip("inspect_ai")

PAGE = ROOT / "docs" / "inspect.md"


def task_parameters() -> set[str]:
    from zork_mcp.inspect.task import zork

    return set(python_inspect.signature(zork).parameters)


def shown_evals() -> list[list[str]]:
    """Each command that runs the task, as `zork-mcp-inspect` arguments (its variables left
    out; `inspect eval zork_mcp/zork` read as the same)."""
    shown = "\n".join(re.findall(r"^```bash\n(.*?)^```", PAGE.read_text(), re.M | re.S))
    commands = []
    for line in re.findall(r"^.*(?:zork-mcp-inspect|inspect eval) .*$", shown, re.M):
        argv = list(itertools.dropwhile(lambda word: "=" in word, shlex.split(line)))
        if argv[0].endswith("/inspect"):
            assert argv[1:3] == ["eval", "zork_mcp/zork"], line
            argv = [".venv/bin/zork-mcp-inspect", *argv[3:]]
        assert argv[0] == ".venv/bin/zork-mcp-inspect", line
        commands.append(argv)
    return commands


def test_each_command_shown_runs_the_task_from_the_venv_with_only_its_parameters():
    evals = shown_evals()
    assert len(evals) >= 3, "the page shows the commands"
    for argv in evals:
        pairs = itertools.pairwise(argv)
        given = [value.split("=", 1)[0] for flag, value in pairs if flag == "-T"]
        assert set(given) <= task_parameters(), given


def test_the_table_lists_every_parameter_of_the_task():
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", PAGE.read_text(), re.M))
    assert listed == task_parameters()


def test_the_task_is_found_by_its_registered_name():
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_lookup

    ensure_entry_points("zork_mcp")
    assert registry_lookup("task", "zork_mcp/zork") is not None
