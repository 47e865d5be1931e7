"""The docs (issue 48): the site builds with warnings as errors (a broken link or anchor
fails it), the README stays short, and every command they show is one a test runs: each
`zork-mcp` / `python -m zork_mcp.app|ghost` line parses with the real CLI's parser, each
`python -m` module exists, and each benchmark shown has the quick mode CI runs
(tests/benchmarks); and each runs from the README's venv, `.venv/bin/` (issue 67)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import itertools
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
README_LINES = 200
# A command as the docs write it, after an optional venv path and environment assignments.
_COMMAND = re.compile(
    r"^(?:[A-Z_]+=\S+\s+)*(?:\.venv/bin/)?(python3? -m \S+|zork-mcp-inspect|zork-mcp)(\s.*|)$"
)
_FENCE = re.compile(r"```(?:bash|sh|console|shell)\n(.*?)```", re.S)
_INLINE = re.compile(
    r"`((?:[A-Z_]+=\S+ )*(?:\.venv/bin/)?(?:python3? -m |zork-mcp(?:-inspect)? )[^`]+)`"
)
# The programs the README's set-up installs into .venv, which a command runs from .venv/bin/
# as the README's commands do (issue 67: the docs said bare `pip`, `inspect`, `zork-mcp`).
VENV_PROGRAMS = {"zork-mcp", "zork-mcp-inspect", "inspect", "pip", "pip3", "mkdocs", "pytest",
                 "mutmut", "ruff", "lint-imports", "uv"}  # fmt: skip
# `python -m` of the repository's modules (a server's module is also how a config names it)
_REPOSITORY_MODULE = re.compile(r"(benchmarks|tests)\.|zork_mcp\.(app|ghost|inspect)$")


def shown_commands() -> list[tuple[str, str]]:
    """(page, command) for every command line the README and the docs show."""
    found = []
    for page in PAGES:
        text = page.read_text()
        blocks = [
            line
            for block in _FENCE.findall(text)
            for line in block.replace("\\\n", " ").splitlines()  # continued lines joined
        ]
        for line in [*blocks, *_INLINE.findall(text)]:
            for part in line.split("&&"):
                if _COMMAND.match(part.strip()):
                    found.append((page.name, part.strip()))
    return found


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "index.html").is_file() and (
        tmp_path / "mcp-servers" / "index.html"
    ).is_file()


def test_every_page_is_in_the_site_and_the_readme_is_short_and_links_to_pages_that_exist():
    nav = (ROOT / "mkdocs.yml").read_text()
    assert [page.name for page in DOCS if page.name not in nav] == []
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_LINES
    linked = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert linked and [path for path in linked if not (ROOT / path).is_file()] == []


def test_the_docs_show_commands_at_all():
    """The extraction itself: a change to how the docs write commands must not silently
    leave the checks below with nothing to check."""
    modules = {command.split()[2] for _, command in shown_commands() if " -m " in command}
    assert {"zork_mcp.app", "zork_mcp.ghost", "benchmarks.confinement"} <= modules


@pytest.mark.parametrize(("page", "command"), shown_commands())
def test_every_command_shown_is_one_that_runs(page, command):
    match = _COMMAND.match(command)
    assert match is not None
    program, rest = match.group(1), shlex.split(match.group(2), comments=True)
    if program == "zork-mcp":
        program, rest = "python -m zork_mcp.app", rest
    if program == "zork-mcp-inspect":  # Inspect's CLI parses it: tests/docs/test_inspect_page.py
        program, rest = "python -m zork_mcp.inspect", rest
    module = program.split()[-1]
    if module in ("venv", "module"):  # `python3 -m venv .venv`; prose's `python -m module`
        return
    assert importlib.util.find_spec(module) is not None, f"{page}: no module {module}"
    parser = _parser(module, rest)
    if parser is not None:
        said = io.StringIO()
        try:
            with contextlib.redirect_stderr(said):
                parser.parse_args(_placeholders(rest))
        except SystemExit:
            pytest.fail(f"{page}: `{command}` does not parse: {said.getvalue().strip()}")
    if module.startswith("benchmarks."):
        source = importlib.util.find_spec(module).origin
        assert "--quick" in Path(source).read_text(), f"{page}: {module} has no --quick mode"


def _parser(module: str, argv: list[str]) -> argparse.ArgumentParser | None:
    """The real parser of the command line, for our own CLIs."""
    if module == "zork_mcp.ghost":
        from zork_mcp.ghost.__main__ import parser

        return parser()
    if module != "zork_mcp.app":
        return None
    if argv[:1] == ["show"]:
        from zork_mcp.app.show import parser

        del argv[:1]
        return parser()
    if argv[:1] == ["eval"]:
        from zork_mcp.app.sweep.cli import report_parser, sweep_parser

        del argv[:1]
        if argv[:1] == ["report"]:
            del argv[:1]
            return report_parser()
        return sweep_parser()
    from zork_mcp.app.cli import parser

    return parser()


def _placeholders(argv: list[str]) -> list[str]:
    """`...` and `<name>` stand for a value the reader fills in."""
    return [re.sub(r"<[^>]+>", "x", arg) for arg in argv if arg not in ("...", "…")]


# Where the docs say which servers the repository's own config has (issue 55: setup.md said
# "our reasoning server" after the memory server had joined it).
_SERVERS_SAID = re.compile(
    r"(?:MCP with our|repository's file has the|`mcp_config.json` offers the)\s+"
    r"([a-z]+(?:(?:,\s*|\s+and\s+)[a-z]+)*)\s+servers?\b"
)


def test_the_servers_the_docs_say_the_repository_config_has_are_the_ones_it_has():
    configured = set(json.loads((ROOT / "mcp_config.json").read_text())["mcpServers"])
    said = {
        page.name: set(re.split(r",\s*|\s+and\s+", names))
        for page in PAGES
        for names in _SERVERS_SAID.findall(" ".join(page.read_text().split()))
    }
    assert {"README.md", "setup.md", "configuration.md", "mcp-servers.md"} <= set(said), said
    assert all(names == configured for names in said.values()), (said, configured)


def test_the_readme_shows_a_status_line_per_turn_only_as_plain_output():
    """A status line after every turn is what `--plain` (or a pipe) prints; on a terminal
    it is one live line at the bottom."""
    text = (ROOT / "README.md").read_text()
    sample = next(
        block for block in re.findall(r"```text\n(.*?)```", text, re.S) if "turn 1 |" in block
    )
    before = " ".join(text[: text.index("```text\n" + sample)].strip().split("\n\n")[-1].split())
    assert "--plain" in before and "live status line" in text
    assert "MCP on: server memory; --no-mcp to play without them" in sample, "as a run starts"


def test_the_readme_says_what_the_tests_install_with_apt_get_and_what_they_leave_in_cache():
    from tests.support.browser import PACKAGES

    readme = " ".join((ROOT / "README.md").read_text().split())
    for package in (*PACKAGES, "tmux"):
        assert f"`{package}`" in readme, package
    assert "apt-get" in readme and "root" in readme and "`.cache/`" in readme


def bare_venv_command(command: str) -> bool:
    """A command line that runs a program of the venv, or one of the repository's modules,
    without `.venv/bin/`. A program with at most a subcommand (`zork-mcp eval`, `inspect
    view`) names it in prose; a server's module with no `--transport` is a config's entry,
    whose `python` is zork_mcp's own interpreter."""
    words = list(itertools.dropwhile(lambda word: re.match(r"[A-Z_]+=", word), command.split()))
    if not words:
        return False
    if words[0] in VENV_PROGRAMS:
        rest = words[2:] if len(words) > 1 and re.fullmatch(r"[a-z]+", words[1]) else words[1:]
        return bool(rest)
    if words[0] in ("python", "python3") and words[1:2] == ["-m"] and len(words) > 2:
        module = words[2]
        served = module.startswith("zork_mcp.servers.") and "--transport" in words
        return served or _REPOSITORY_MODULE.match(module) is not None
    return False


def test_every_command_runs_from_the_readmes_venv():
    bare = []
    for page in PAGES:
        text = page.read_text()
        lines = [
            line.strip()
            for block in _FENCE.findall(text)
            for line in block.replace("\\\n", " ").splitlines()
        ]
        inline = re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
        commands = [part.strip() for line in lines + inline for part in line.split("&&")]
        bare += [f"{page.name}: {command}" for command in commands if bare_venv_command(command)]
    assert bare == []
