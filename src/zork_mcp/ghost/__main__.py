"""`python -m zork_mcp.ghost inspect|replay|record GOLDEN`: look at, rerun or re-record goldens."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from rich.console import Console

from zork_mcp.builders.env_file import load_env_file
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.ghost.goldens import load_golden, record, replay, save_golden
from zork_mcp.ghost.inspect import inspect_golden


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m zork_mcp.ghost", description=__doc__, allow_abbrev=False
    )
    commands = p.add_subparsers(dest="command", required=True)
    show = commands.add_parser(
        "inspect", allow_abbrev=False, help="print goldens' conversation, tool chain, metrics"
    )
    show.add_argument("goldens", nargs="+", type=Path)
    rerun = commands.add_parser(
        "replay", allow_abbrev=False, help="run a golden offline and print the result JSON"
    )
    rerun.add_argument("golden", type=Path)
    again = commands.add_parser(
        "record", allow_abbrev=False, help="re-record a golden against the real provider"
    )
    again.add_argument("golden", type=Path)
    return p


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    load_env_file()
    console = Console()
    if arguments.command == "inspect":
        for path in arguments.goldens:
            inspect_golden(load_golden(path), console)
        return 0
    if arguments.command == "replay":
        result, _ = asyncio.run(replay(load_golden(arguments.golden)))
        print(result.model_dump_json(indent=2))
        return 0
    return _record(arguments.golden, console)


def _record(path: Path, console: Console) -> int:
    golden = load_golden(path)
    provider = golden["input"]["provider"]
    names = PROVIDERS[provider].key_variables
    key = PROVIDERS[provider].key_in(os.environ)
    if key is None:
        console.print(f"Recording talks to the real {provider} API: set {' or '.join(names)}.")
        return 2
    fresh = asyncio.run(
        record(
            golden["input"],
            key,
            test_name=golden["test_name"],
            description=golden.get("description", ""),
            source=f"recorded from the {provider} API",
        )
    )
    save_golden(path, fresh)
    console.print(f"recorded {len(fresh['provider_responses'])} responses into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
