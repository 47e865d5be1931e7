"""`python -m zork_mcp.app`: Play one episode of a text adventure with an LLM agent and MCP
tools."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from zork_mcp.app import bootstrap
from zork_mcp.app.command_line import interrupted_while_loading
from zork_mcp.app.container import Container
from zork_mcp.app.flags import at_least_0, positive
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.app.progress import print_summary
from zork_mcp.app.screen import screen
from zork_mcp.builders.env_file import load_env_file
from zork_mcp.builders.providers import (
    DEFAULT_PROVIDER,
    OPENAI_APIS,
    PROVIDERS,
    Provider,
    provider_named,
    resolve_model,
)
from zork_mcp.builders.settings import RunOptions, project_settings, run_options
from zork_mcp.builders.storage import TRUST_FLAG, EpisodeFolder
from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.episode.history import DEFAULT_HISTORY, HistoryMode
from zork_mcp.domain.errors import ConfigurationError, EpisodeFolderError, ZorkMcpError
from zork_mcp.domain.facts.episode_facts import BudgetReached
from zork_mcp.domain.facts.notice_facts import RepliesUnreadable
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.game.seeds import checked_seeds
from zork_mcp.domain.llm.budget import Budget, Spend
from zork_mcp.domain.loop.agent_response import FALLBACK_ACTION
from zork_mcp.domain.servers.config_advice import CLI_SWITCHES
from zork_mcp.domain.text.inert import inert

EXIT_CODES = {
    EndReason.INTERRUPTED: 130,
    EndReason.EMULATOR_HALTED: 1,
    EndReason.EMULATOR_LOST: 1,
    EndReason.UNREADABLE_REPLIES: 1,  # the model's answers were not played: look at them
}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zork-mcp",
        allow_abbrev=False,
        description=" ".join(__doc__.split()).split(": ")[1],
        epilog="Sweeps of many episodes: `zork-mcp eval --help`; one episode's logs turn by "
        "turn: `zork-mcp show EPISODE_ID`. The manual: docs/ (README.md lists its pages).",
    )
    _game_flags(p.add_argument_group("the game"))
    _model_flags(p.add_argument_group("the model"))
    _mcp_flags(p.add_argument_group("MCP tools"))
    _episode_flags(p.add_argument_group("the episode and its logs"))
    _history_and_budget_flags(p.add_argument_group("what the agent sees, and what it may spend"))
    return p


def _game_flags(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--game",
        metavar="NAME|PATH",
        help="the game: zork1, zork2 or zork3 (shipped in the package), or a story file's path "
        "(default: $ZORK_MCP_GAME, else [tool.zorkgpt] game, else zork1)",
    )
    g.add_argument(
        "--max-score",
        type=positive(int, "350"),
        default=None,
        metavar="N",
        help="an unknown story file's most points, for its normalised score (default: "
        "[tool.zorkgpt] max_score; the trilogy's are known)",
    )
    g.add_argument(
        "--seed",
        type=_seed,
        default=12,
        metavar="N",
        help="the game's random seed, at least 1: the same seed and commands, the same game "
        "(default: 12, for which the walkthroughs are made)",
    )
    g.add_argument(
        "--allow-quit-restart",
        action="store_true",
        help="let the agent's `quit` and `restart` reach the game (refused by default)",
    )
    g.add_argument(
        "--end-at-first-death",
        action="store_const",
        const=True,
        default=None,
        help="end the episode at the player's first death, as Jericho's `done` does "
        "(default: [tool.zorkgpt] end_at_first_death, else play on while the game does; "
        "Zork I reincarnates twice)",
    )


def _model_flags(g: argparse._ArgumentGroup) -> None:
    keys = ", ".join(_with_key(provider) for provider in PROVIDERS.values())
    g.add_argument(
        "--provider",
        type=_provider,
        choices=PROVIDERS,
        default=DEFAULT_PROVIDER,
        help=f"the LLM's provider, and the key it reads: {keys} (default: {DEFAULT_PROVIDER})",
    )
    defaults = ", ".join(f"{name}: {p.default_model}" for name, p in PROVIDERS.items())
    g.add_argument("--model", help=f"the model's name (default per provider: {defaults})")
    g.add_argument(
        "--base-url",
        metavar="URL",
        help="the provider's API base URL (default: each provider's own; local: "
        f"{PROVIDERS['local'].base_url})",
    )
    g.add_argument(
        "--openai-api",
        choices=OPENAI_APIS,
        help="OpenAI's API for --provider openai (default: the one the model's family takes "
        "tools through; docs/providers.md, 'OpenAI: chat completions or Responses')",
    )


def _with_key(provider: Provider) -> str:
    variables = " or ".join(provider.key_variables)
    if provider.hosted:
        return f"{provider.name} ({variables})"
    return f"{provider.name} (an OpenAI-compatible server of yours; {variables} if it asks one)"


def _mcp_flags(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--config",
        type=Path,
        default=Path("pyproject.toml"),
        metavar="PATH",
        help="the pyproject file whose [tool.zorkgpt] tables set the run up (default: "
        "pyproject.toml here; without one, every setting's default)",
    )
    g.add_argument(
        "--mcp-config",
        type=Path,
        metavar="PATH",
        help="the MCP servers' config, Claude Desktop's mcpServers format (default: "
        "[tool.zorkgpt.mcp] config_file beside --config, mcp_config.json)",
    )
    g.add_argument(
        "--mcp",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer MCP tools to the agent, or not (default: [tool.zorkgpt.mcp] enabled, else off)",
    )
    g.add_argument(
        "--mcp-servers",
        type=_names,
        default=None,
        metavar="A,B",
        help="use only these servers of the MCP config (default: the config's `servers`, else all)",
    )


def _episode_flags(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--max-turns",
        type=positive(int, "100"),
        default=100,
        metavar="N",
        help="stop after this many turns, if the game has not ended (default: 100)",
    )
    g.add_argument(
        "--log-dir",
        type=Path,
        default=Path("logs"),
        metavar="DIR",
        help="where each episode's folder is made, DIR/EPISODE_ID (default: logs)",
    )
    g.add_argument(
        "--episode-id",
        default=None,
        metavar="ID",
        help="the episode's name, which names its folder under --log-dir; a folder that is not "
        "empty is never started over, only played on with --resume (default: "
        "episode-YYYYMMDD-HHMMSS, the time it starts)",
    )
    g.add_argument(
        "--resume",
        action="store_true",
        help="play episode --episode-id on from its last checkpoint: after an error or Ctrl-C, "
        "or with a higher --max-turns or budget after one stopped it",
    )
    g.add_argument(
        TRUST_FLAG,
        action="store_true",
        help="with --resume: load an old checkpoint.pickle (the format before "
        "checkpoint.json); loading a pickle runs the code it holds, so only for a folder "
        "you know no MCP server or other program wrote",
    )
    g.add_argument(
        "--plain",
        action="store_true",
        help="plain progress lines, no live display (so too when the output is not a terminal)",
    )
    g.add_argument(
        "--dry-run",
        action="store_true",
        help="print the run's estimate (tokens, and dollars with and without prompt caching) "
        "and exit before any LLM call",
    )


def _history_and_budget_flags(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--history",
        choices=[mode.value for mode in HistoryMode],
        default=None,
        help="what the agent sees of its past turns: a window of them, all (full, within the "
        "budget), or only its state and 5 recent actions (default: [tool.zorkgpt] history, "
        "else window)",
    )
    g.add_argument(
        "--history-turns",
        type=positive(int, str(DEFAULT_HISTORY.turns)),
        default=None,
        metavar="N",
        help="the window's turns (default: [tool.zorkgpt] history_turns, else "
        f"{DEFAULT_HISTORY.turns})",
    )
    g.add_argument(
        "--history-budget-tokens",
        type=at_least_0(str(DEFAULT_HISTORY.budget_tokens)),
        default=None,
        metavar="N",
        help="the tokens the past turns may take, estimated at 4 characters a token (default: "
        f"[tool.zorkgpt] history_budget_tokens, else {DEFAULT_HISTORY.budget_tokens})",
    )
    g.add_argument(
        "--budget-usd",
        type=positive(float, "2.5"),
        default=None,
        metavar="USD",
        help="stop before an LLM call this many dollars of calls could not cover (priced "
        "models only; default: [tool.zorkgpt] budget_usd, else no limit)",
    )
    g.add_argument(
        "--budget-tokens",
        type=positive(int, "200000"),
        default=None,
        metavar="N",
        help="the same in tokens, input and output (default: [tool.zorkgpt] budget_tokens, "
        "else no limit)",
    )


def options_from(args: argparse.Namespace) -> RunOptions:
    if args.resume and not args.episode_id:
        parser().error(
            "--resume continues an earlier episode: name it with --episode-id "
            "(its folder under --log-dir, e.g. logs/episode-20261123-081500)"
        )
    episode = args.episode_id or time.strftime("episode-%Y%m%d-%H%M%S")
    try:
        model = resolve_model(args.provider, args.model, args.openai_api)
    except ConfigurationError as e:
        parser().error(str(e))
    return run_options(
        model=model,
        base_url=args.base_url,
        game=args.game,
        max_score=args.max_score,
        seed=args.seed,
        max_turns=args.max_turns,
        config=args.config,
        mcp_config=args.mcp_config,
        mcp=args.mcp,
        mcp_servers=args.mcp_servers,
        mcp_switches=CLI_SWITCHES,
        history=args.history,
        history_turns=args.history_turns,
        history_budget_tokens=args.history_budget_tokens,
        budget=_budget(args),
        log_dir=args.log_dir,
        episode_id=episode,
        plain=args.plain,
        allow_quit_restart=args.allow_quit_restart,
        end_at_first_death=args.end_at_first_death,
        resume=args.resume,
        trust_pickle=args.trust_pickle_checkpoint,
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
            interrupted_while_loading(argv)
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
        container.project.override(project_settings(options.config))  # read once, here
        game = _refusals_first(container)  # refused before the episode writes anything
        if not game.known:
            console.print(Text(_unknown_game(game)), soft_wrap=True, highlight=False)
        folder = _episode_folder(options, args)
        if options.resume and (finished := _finished(container, options)) is not None:
            console.print(Text(finished), soft_wrap=True)
            return 0
        orchestrator = _built(container, folder)
        summary = orchestrator.run()
    except ZorkMcpError as error:
        container.progress.shutdown()  # the live line goes first: the error starts a line
        message = Text.assemble(("error:", "bold red"), " ", inert(str(error)))
        console.print(message, highlight=False, soft_wrap=True)
        return 2
    finally:
        container.shutdown_resources()
    out = screen(plain=options.plain)
    print_summary(out, summary, str(options.episode_dir))
    if summary.end_reason is EndReason.BUDGET and orchestrator.budget_reached is not None:
        _say_budget_stop(out, options, orchestrator.budget_reached)
    if summary.end_reason is EndReason.UNREADABLE_REPLIES:
        streak = RepliesUnreadable(summary.turns, container.project().max_unreadable_replies)
        out.print(Text(streak.line(FALLBACK_ACTION)), soft_wrap=True)
    if summary.end_reason is EndReason.INTERRUPTED:
        out.print(Text(_interrupted_hint(container, args, summary.turns)), soft_wrap=True)
    return EXIT_CODES.get(summary.end_reason, 0)


def _refusals_first(container: Container) -> GameProfile:
    """What the run's settings refuse, refused before anything is written: no key, a budget
    the model cannot be priced for, a story file the emulator cannot play, the pyproject, the
    MCP config, its servers and tool filters, the history's window. The game played."""
    container.llm_settings()
    container.spend_guard()
    game = container.game_settings().profile
    container.start_plan()
    container.history()
    return game


def _episode_folder(options: RunOptions, args: argparse.Namespace) -> EpisodeFolder:
    """The episode's folder as it is before the run; a new episode is refused where it is
    not empty (`--resume` plays on from its checkpoint, which `_finished` loads)."""
    folder = bootstrap.episode_folder(options.episode_dir)
    if not options.resume and folder.entries:
        raise EpisodeFolderError(_taken(folder, args, options.episode_id))
    return folder


def _taken(folder: EpisodeFolder, args: argparse.Namespace, episode_id: str) -> str:
    names = ", ".join(folder.entries[:5]) + (", ..." if len(folder.entries) > 5 else "")
    said = (
        f"The episode folder {folder.path} is not empty ({names}), and a new episode never "
        "starts over what is there. "
    )
    anew = "For a new episode, pass another --episode-id, or none (a timestamp names it)"
    if folder.holds_checkpoint:
        return f"{said}To play its episode on: {resume_command(args, episode_id)}. {anew}."
    return (
        f"{said}It holds no checkpoint (its episode stopped before its first turn ended; its "
        f"episode.log says why), so there is nothing to resume. {anew}, or remove the folder "
        "to use its name again."
    )


def _built(container: Container, folder: EpisodeFolder) -> Orchestrator:
    """The episode's parts; if one cannot be made, they are shut and what they made of the
    episode's folder is removed: a run refused before its episode began leaves none."""
    try:
        return container.orchestrator()
    except BaseException:
        container.shutdown_resources()
        folder.remove_what_was_made()
        raise


def resume_command(args: argparse.Namespace, episode_id: str) -> str:
    """The command that plays episode `episode_id` on: this run's flags that differ from
    their defaults (as this run read them), then `--resume --episode-id`."""
    words = ["zork-mcp"]
    for action in parser()._actions:
        if not action.option_strings or action.dest in _NOT_RESUMED:
            continue
        value = getattr(args, action.dest)
        if value != action.default:
            words += _flag_words(action, value)
    return shlex.join([*words, "--resume", "--episode-id", episode_id])


_NOT_RESUMED = {"help", "episode_id", "resume", "dry_run", "trust_pickle_checkpoint"}


def _flag_words(action: argparse.Action, value: object) -> list[str]:
    flag = action.option_strings[0]
    if isinstance(action, argparse.BooleanOptionalAction):
        return [flag if value else f"--no-{flag.removeprefix('--')}"]
    if action.nargs == 0:  # store_true, store_const
        return [flag]
    if isinstance(value, tuple):
        return [flag, ",".join(value)]
    return [flag, str(value)]


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
    """What to say instead of resuming an episode that has nothing left to play. A checkpoint
    that is missing or not one zork-mcp wrote is refused here, before anything is written."""
    why = container.checkpoints().load().finished(options.max_turns)
    if why is None:
        return None
    return f"Episode {options.episode_id} is finished, so --resume plays nothing: {why}."


def dry_run(options: RunOptions) -> int:
    from zork_mcp.app.estimate import estimate_run, print_estimates

    try:
        estimate = estimate_run(options, project_settings(options.config))
    except ZorkMcpError as error:
        Console(stderr=True).print(Text.assemble(("error:", "bold red"), " ", inert(str(error))))
        return 2
    print_estimates(screen(plain=options.plain), [estimate])
    return 0


def _say_budget_stop(console: Console, options: RunOptions, reached: BudgetReached) -> None:
    """What the budget allowed, what was spent and what the next call needed, then the
    command that plays on, raising the limit that stopped it (on its own line, whole)."""
    when = f"after turn {reached.turn}" if reached.turn else "before its first turn"
    console.print(
        f"Stopped by the budget {when}: {reached.figures()}. To play on, raise it and "
        "resume, with the same other options:",
        highlight=False,
    )
    command = (
        f"zork-mcp --resume --episode-id {options.episode_id} --log-dir {options.log_dir} "
        + " ".join(_flags_to_raise(reached))
    )
    console.print(Text(f"  {command}"), soft_wrap=True, highlight=False)


def _flags_to_raise(reached: BudgetReached) -> list[str]:
    """The flag of each limit the next call did not fit (a dollar budget is never one a
    model without a price could have had: it is refused before any call)."""
    spent = Spend(reached.spent_tokens, reached.spent_usd)
    need = Spend(reached.next_call_tokens, reached.next_call_usd)
    limits = [
        ("--budget-usd USD", reached.budget_usd, Budget(usd=reached.budget_usd)),
        ("--budget-tokens N", reached.budget_tokens, Budget(tokens=reached.budget_tokens)),
    ]
    short = [f for f, limit, alone in limits if limit is not None and not alone.covers(spent, need)]
    return short or [flag for flag, limit, _ in limits if limit is not None]


def _interrupted_hint(container: Container, args: argparse.Namespace, turns: int) -> str:
    """After Ctrl-C: the command that plays the episode on from its checkpoint."""
    if not container.checkpoints().exists():
        return (
            "Interrupted before its first turn ended: there is nothing to resume. For a new "
            "episode, run the same command with another --episode-id, or none."
        )
    command = resume_command(args, container.options().episode_id)
    return f"Interrupted after turn {turns}. To play on from there: {command}"


def _budget(args: argparse.Namespace) -> Budget | None:
    """The flags' budget; None, without either flag: the pyproject's."""
    if args.budget_usd is None and args.budget_tokens is None:
        return None
    return Budget(args.budget_usd, args.budget_tokens)


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
