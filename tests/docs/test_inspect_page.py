"""docs/inspect.md: each `inspect eval` line it shows runs the registered task with
parameters the task has, and the table lists every parameter of the task."""

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
    lines = re.findall(r"^inspect eval .*$", PAGE.read_text(), re.M)
    return [shlex.split(line) for line in lines]


def test_each_inspect_eval_shown_names_the_task_and_only_its_parameters():
    evals = shown_evals()
    assert evals, "the page shows the command"
    for argv in evals:
        assert argv[2] == "zork_mcp/zork"
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
