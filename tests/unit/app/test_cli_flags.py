"""The command lines' flags (issue 67): each flag is taken only as written, a number only in
its range, and `--help` says what each flag does and its default."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from zork_mcp.app import cli, show
from zork_mcp.app.sweep import cli as sweep_cli
from zork_mcp.ghost import __main__ as ghost
from zork_mcp.servers import memory, transport

SRC = Path(cli.__file__).parents[1]


def every_parser() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Each command line of the package, with its subcommands'."""
    parsers = [
        cli.parser(),
        show.parser(),
        sweep_cli.sweep_parser(),
        sweep_cli.report_parser(),
        ghost.parser(),
        transport.transport_parser("a server"),
        memory._parser(),
    ]
    while parsers:
        parser = parsers.pop()
        yield parser.prog, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())


@pytest.mark.parametrize("parser", [pytest.param(p, id=prog) for prog, p in every_parser()])
def test_an_abbreviated_flag_is_refused_not_guessed(parser, capsys):
    """`--hel` is no `--help`: an abbreviation would silently mean a flag never written."""
    with pytest.raises(SystemExit) as exit:
        parser.parse_args(["--hel"])
    assert exit.value.code == 2, f"{parser.prog} took --hel for --help"
    capsys.readouterr()


def test_the_cli_refuses_an_abbreviated_max_turns(capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main(["--max-turn", "3"])
    assert exit.value.code == 2
    assert "unrecognized arguments: --max-turn" in capsys.readouterr().err


def test_every_parser_the_package_makes_refuses_abbreviations():
    """A parser added later is made with allow_abbrev=False too."""
    made = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func if isinstance(node, ast.Call) else None
            name = getattr(called, "attr", getattr(called, "id", None))
            if name in ("ArgumentParser", "add_parser"):
                words = {k.arg: k.value for k in node.keywords}
                strict = isinstance(words.get("allow_abbrev"), ast.Constant)
                made.append(
                    (f"{path.name}:{node.lineno}", strict and not words["allow_abbrev"].value)
                )
    assert len(made) >= 9 and [where for where, strict in made if not strict] == []
