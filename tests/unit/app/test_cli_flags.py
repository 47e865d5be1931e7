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


@pytest.mark.parametrize("parser", [pytest.param(p, id=prog) for prog, p in every_parser()])
def test_the_example_a_number_flag_gives_is_one_it_takes(parser):
    """A count's refusal never suggests a fraction (`--budget-tokens`: 'e.g. 2.5' was one)."""
    for action in parser._actions:
        if not callable(action.type):
            continue
        try:
            action.type("-1")
        except (argparse.ArgumentTypeError, ValueError) as refused:
            if "e.g. " in str(refused):
                example = str(refused).rsplit("e.g. ", 1)[1].split()[0].rstrip(".,;)")
                assert action.type(example), (action.option_strings, example)


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--max-turns", "0", "'0': give a whole number above 0, e.g. 100"),
        ("--max-turns", "-5", "'-5': give a whole number above 0, e.g. 100"),
        ("--max-turns", "2.5", "'2.5': give a whole number above 0, e.g. 100"),
        ("--max-score", "0", "'0': give a whole number above 0, e.g. 350"),
        ("--budget-tokens", "-1", "'-1': give a whole number above 0, e.g. 200000"),
        ("--budget-usd", "0", "'0': give a number above 0, e.g. 2.5"),
        ("--budget-usd", "inf", "'inf': give a number above 0, e.g. 2.5"),
        ("--budget-usd", "nan", "'nan': give a number above 0, e.g. 2.5"),
        ("--history-turns", "0", "'0': give a whole number above 0, e.g. 30"),
        ("--history-budget-tokens", "-1", "'-1': give a whole number, 0 or more, e.g. 8000"),
        ("--seed", "0", "at least 1"),
    ],
)
def test_a_number_out_of_its_flags_range_is_refused_saying_what_it_takes(
    flag, value, expected, capsys
):
    """Refused as the command line is read, before anything is written; the message names
    the flag, the value given and a value the flag takes (a whole number for a count)."""
    with pytest.raises(SystemExit) as exit:
        cli.main([flag, value])
    assert exit.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"argument {flag}: " in err and expected in err


@pytest.mark.parametrize(
    ("flag", "value", "field", "taken"),
    [
        ("--max-turns", "1", "max_turns", 1),
        ("--history-budget-tokens", "0", "history_budget_tokens", 0),
        ("--budget-usd", "0.01", "budget_usd", 0.01),
    ],
)
def test_the_least_value_of_a_flag_is_taken(flag, value, field, taken):
    assert getattr(cli.parser().parse_args([flag, value]), field) == taken


def flag_help(flag: str) -> str:
    """A flag's help, as `--help` prints it, on one line."""
    [action] = [a for a in cli.parser()._actions if flag in a.option_strings]
    return " ".join((action.help or "").split())


@pytest.mark.parametrize("parser", [cli.parser(), show.parser()], ids=["zork-mcp", "show"])
def test_every_flag_says_what_it_does_and_its_default(parser):
    """A flag with a default that is not plainly off says it (or where it comes from)."""
    for action in parser._actions:
        assert action.help, f"{action.option_strings or action.dest} has no help"
        if action.option_strings and action.nargs != 0 and action.dest != "help":
            assert "default" in action.help, f"{action.option_strings} gives no default"


def test_help_names_every_provider_its_key_and_the_default():
    from zork_mcp.builders.providers import DEFAULT_PROVIDER, PROVIDERS

    said = flag_help("--provider")
    assert f"(default: {DEFAULT_PROVIDER})" in said
    for provider in PROVIDERS.values():
        assert provider.name in said and provider.key_variables[0] in said


def test_help_gives_the_base_urls_default_and_never_says_local_needs_one():
    from zork_mcp.builders.providers import PROVIDERS

    said = flag_help("--base-url")
    assert f"local: {PROVIDERS['local'].base_url}" in said and "needed" not in said


def test_help_cites_the_page_that_holds_the_section_it_names():
    said = flag_help("--openai-api")
    page, section = "providers.md", "OpenAI: chat completions or Responses"
    assert f"docs/{page}, '{section}'" in said
    assert f"## {section}\n" in (SRC.parents[1] / "docs" / page).read_text(encoding="utf-8")


def test_help_of_the_history_window_gives_the_defaults_it_has():
    from zork_mcp.domain.episode.history import DEFAULT_HISTORY

    assert f"else {DEFAULT_HISTORY.turns})" in flag_help("--history-turns")
    assert f"else {DEFAULT_HISTORY.budget_tokens})" in flag_help("--history-budget-tokens")
