"""`python -m zork_mcp.app`: Play one episode of a text adventure with an LLM agent and MCP
tools."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.text import Text

from zork_mcp.app.command_line import interrupted_while_loading
from zork_mcp.app.container import Container
from zork_mcp.app.progress import print_summary
from zork_mcp.builders.env_file import load_env_file
from zork_mcp.builders.providers import DEFAULT_PROVIDER, OPENAI_APIS, PROVIDERS, provider_named
from zork_mcp.builders.settings import RunOptions
from zork_mcp.builders.storage import TRUST_FLAG
from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.episode.history import HistoryMode
from zork_mcp.domain.errors import ConfigurationError, ZorkMcpError
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.game.seeds import checked_seeds
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.text.inert import inert

N = TypeVar("N", int, float)
EXIT_CODES = {EndReason.INTERRUPTED: 130, EndReason.EMULATOR_HALTED: 1, EndReason.EMULATOR_LOST: 1}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zork-mcp",
        description=" ".join(__doc__.split()).split(": ")[1],
        epilog="Sweeps of many episodes: `zork-mcp eval --help`; one episode's logs turn by "
        "turn: `zork-mcp show EPISODE_DIR`.",
    )
    p.add_argument(
        "--game",
        metavar="NAME|PATH",
        help="the game: zork1, zork2 or zork3 (shipped in the package), or a story file's path "
        "(default: $ZORK_MCP_GAME, else [tool.zorkgpt] game, else zork1)",
    )
    p.add_argument(
        "--max-score",
        type=positive(int),
        default=None,
        metavar="N",
        help="an unknown story file's most points, for its normalised score (default: "
        "[tool.zorkgpt] max_score; the trilogy's are known)",
    )
    p.add_argument("--max-turns", type=int, default=100, help="stop after this many turns")
    p.add_argument("--provider", type=_provider, choices=PROVIDERS, default=DEFAULT_PROVIDER)
    defaults = ", ".join(f"{name}: {p.default_model}" for name, p in PROVIDERS.items())
    p.add_argument("--model", help=f"model name (default per provider: {defaults})")
    p.add_argument("--base-url", help="provider base URL (needed for --provider local)")
    p.add_argument(
        "--openai-api",
        choices=OPENAI_APIS,
        help="OpenAI's API for --provider openai (default: the one the model's family takes "
        "tools through; README: 'OpenAI: chat completions or Responses')",
    )
    p.add_argument(
        "--config",
        type=Path,
        default=Path("pyproject.toml"),
        help="pyproject file with [tool.zorkgpt.mcp]",
    )
    p.add_argument("--mcp-config", type=Path, help="MCP server config (default from --config)")
    p.add_argument(
        "--mcp",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer MCP tools (default: the config's enabled)",
    )
    p.add_argument(
        "--mcp-servers",
        type=_names,
        default=None,
        metavar="A,B",
        help="use only these servers of the MCP config (default: the config's `servers`, else all)",
    )
    p.add_argument("--log-dir", type=Path, default=Path("logs"))
    p.add_argument(
        "--seed",
        type=_seed,
        default=12,
        help="the game's random seed, at least 1: the same seed and commands, the same game "
        "(default 12, for which the walkthroughs are made)",
    )
    p.add_argument("--episode-id", default=None, help="default: a timestamp")
    p.add_argument("--plain", action="store_true", help="plain progress lines, no live display")
    p.add_argument(
        "--allow-quit-restart",
        action="store_true",
        help="let the agent's `quit` and `restart` reach the game (refused by default)",
    )
    p.add_argument(
        "--end-at-first-death",
        action="store_const",
        const=True,
        default=None,
        help="end the episode at the player's first death, as Jericho's `done` does "
        "(default: play on while the game does; Zork I reincarnates twice)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue episode --episode-id from its last checkpoint (e.g. after an error)",
    )
    p.add_argument(
        TRUST_FLAG,
        action="store_true",
        help="with --resume: load an old checkpoint.pickle (the format before "
        "checkpoint.json); loading a pickle runs the code it holds, so only for a folder "
        "you know no MCP server or other program wrote",
    )
    p.add_argument(
        "--history",
        choices=[mode.value for mode in HistoryMode],
        default=None,
        help="what the agent sees of its past turns: a window of them, all (full, within the "
        "budget), or only its state and 5 recent actions (default: [tool.zorkgpt] history, "
        "else window)",
    )
    p.add_argument(
        "--budget-usd",
        type=positive(float),
        default=None,
        metavar="USD",
        help="stop before an LLM call this many dollars of calls could not cover (priced "
        "models only; default: [tool.zorkgpt] budget_usd, else no limit)",
    )
    p.add_argument(
        "--budget-tokens",
        type=positive(int),
        default=None,
        metavar="N",
        help="the same in tokens, input and output (default: [tool.zorkgpt] budget_tokens)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the run's estimate (tokens, and dollars with and without prompt caching) "
        "and exit before any LLM call",
    )
    p.add_argument("--history-turns", type=int, default=None, help="the window's turns")
    p.add_argument(
        "--history-budget-tokens", type=int, default=None, help="tokens the past turns may take"
    )
    return p


def options_from(args: argparse.Namespace) -> RunOptions:
    if args.resume and not args.episode_id:
        parser().error(
            "--resume continues an earlier episode: name it with --episode-id "
            "(its folder under --log-dir, e.g. logs/episode-20261123-081500)"
        )
    episode = args.episode_id or time.strftime("episode-%Y%m%d-%H%M%S")
    try:
        PROVIDERS[args.provider].api_for(args.model, args.openai_api)
    except ConfigurationError as e:
        parser().error(str(e))
    return RunOptions(
        provider=args.provider,
        model=args.model,
        base_url=args.base_url,
        openai_api=args.openai_api,
        game=args.game,
        max_score=args.max_score,
        max_turns=args.max_turns,
        config=args.config,
        mcp_config=args.mcp_config,
        mcp=args.mcp,
        mcp_servers=args.mcp_servers,
        log_dir=args.log_dir,
        seed=args.seed,
        episode_id=episode,
        plain=args.plain,
        allow_quit_restart=args.allow_quit_restart,
        end_at_first_death=args.end_at_first_death,
        resume=args.resume,
        trust_pickle=args.trust_pickle_checkpoint,
        history=HistoryMode(args.history) if args.history else None,
        history_turns=args.history_turns,
        history_budget_tokens=args.history_budget_tokens,
        budget=_budget(args),
    )


def main(argv: Sequence[str] | None = None, container: Container | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    escape_unencodable_output()
    if argv[:1] == ["show"]:
        from zork_mcp.app.show import main as show_main

        return show_main(argv[1:])
    if argv[:1] == ["eval"]:
        try:
            from zork_mcp.app.sweep.cli import main as eval_main  # numpy etc. only for sweeps
        except KeyboardInterrupt:
            return interrupted_while_loading(argv)
        return eval_main(argv[1:])
    args = parser().parse_args(argv)
    options = options_from(args)
    if args.dry_run:
        return dry_run(options)
    load_env_file()
    container = container or Container()
    container.options.override(options)
    console = Console(stderr=True)
    try:
        container.llm_settings()  # no key, or a budget the model cannot be priced for,
        container.spend_guard()  # or a story file that is not one the emulator can play:
        game = container.game_settings().profile  # refused before the episode writes anything
        if not game.known:
            console.print(Text(_unknown_game(game)), soft_wrap=True, highlight=False)
        if options.resume and (finished := _finished(container, options)) is not None:
            console.print(Text(finished), soft_wrap=True)
            return 0
        summary = container.orchestrator().run()
    except ZorkMcpError as error:
        container.progress.shutdown()  # the live line goes first: the error starts a line
        message = Text.assemble(("error:", "bold red"), " ", inert(str(error)))
        console.print(message, highlight=False, soft_wrap=True)
        return 2
    finally:
        container.shutdown_resources()
    out = Console()
    print_summary(out, summary, str(options.episode_dir))
    if summary.end_reason is EndReason.BUDGET:
        out.print(Text(_budget_hint(options, summary.turns)), soft_wrap=True)
    return EXIT_CODES.get(summary.end_reason, 0)


def _seed(text: str) -> int:
    try:
        return checked_seeds([int(text)], "--seed")[0]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, e.g. 12") from None
    except ConfigurationError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _provider(name: str) -> str:
    """The registry's check, so a wrong name reads the same here, in eval and in MCP-Ghost."""
    try:
        return provider_named(name).name
    except ConfigurationError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _unknown_game(game: GameProfile) -> str:
    """What a run of a game the project has no words for says first."""
    return (
        f"Playing {game.name}, a game zork-mcp has no profile for: it cannot tell "
        + "; ".join(game.unknowns())
        + ". Score and moves come from the game's status line (docs/games.md)."
    )


def _finished(container: Container, options: RunOptions) -> str | None:
    """What to say instead of resuming an episode that has nothing left to play."""
    checkpoints = container.checkpoints()
    if not checkpoints.exists():
        return None  # the orchestrator says there is nothing to resume
    why = checkpoints.load().finished(options.max_turns)
    if why is None:
        return None
    return f"Episode {options.episode_id} is finished, so --resume plays nothing: {why}."


def dry_run(options: RunOptions) -> int:
    from zork_mcp.app.estimate import estimate_run, print_estimates

    try:
        estimate = estimate_run(options)
    except ZorkMcpError as error:
        Console(stderr=True).print(Text.assemble(("error:", "bold red"), " ", inert(str(error))))
        return 2
    print_estimates(Console(), [estimate])
    return 0


def _budget_hint(options: RunOptions, turns: int) -> str:
    return (
        f"Stopped by the budget after turn {turns}: to play on, raise it and resume, e.g. "
        f"zork-mcp --resume --episode-id {options.episode_id} --log-dir {options.log_dir} "
        "--budget-usd N (or --budget-tokens N), with the same other options."
    )


def _budget(args: argparse.Namespace) -> Budget | None:
    """The flags' budget; None, without either flag: the pyproject's."""
    if args.budget_usd is None and args.budget_tokens is None:
        return None
    return Budget(args.budget_usd, args.budget_tokens)


def positive(kind: Callable[[str], N]) -> Callable[[str], N]:
    def parse(text: str) -> N:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number above 0, e.g. 2.5")
        return value

    return parse


def _names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError("name one server or more, comma-separated: a,b")
    return names


def escape_unencodable_output() -> None:
    """A model's text may hold what the terminal cannot (a lone surrogate): print its escape."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def run() -> None:
    """The entry of an install from before `command_line.run` (its `zork-mcp` script)."""
    sys.exit(main())
