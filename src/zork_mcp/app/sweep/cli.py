"""`zork-mcp eval`: play a sweep of episodes (models x MCP modes x history modes x games x
seeds) and report on it.

zork-mcp eval --model openrouter:openai/gpt-4o-mini --mcp on,off --episodes 10
zork-mcp eval --model local:m --game zork1,zork2,zork3 --episodes 10
zork-mcp eval --model local:m --mcp off,configs/memory.json --history window,state
zork-mcp eval --sweep sweep.toml
zork-mcp eval report eval/results.sqlite [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from zork_mcp.app.bootstrap import LocalWorkers, RayActors, results_store, sweep_backend
from zork_mcp.app.command_line import INTERRUPTED
from zork_mcp.app.estimate import RunEstimate, estimate_run, print_estimates
from zork_mcp.app.flags import positive
from zork_mcp.app.screen import screen
from zork_mcp.app.sweep.ctrl_c import ctrl_c_stops
from zork_mcp.app.sweep.episode import episode_options, play_episode
from zork_mcp.app.sweep.live import sweep_progress
from zork_mcp.app.sweep.play_on import interrupted, rerun, stopped
from zork_mcp.app.sweep.sweep import (
    Sweep,
    model_spec,
    parse_games,
    parse_history_modes,
    parse_mcp_modes,
    sweep_from_toml,
)
from zork_mcp.builders.game import find_story
from zork_mcp.builders.settings import project_settings
from zork_mcp.builders.storage import TRUST_FLAG
from zork_mcp.domain.errors import ConfigurationError, ZorkMcpError
from zork_mcp.domain.game.seeds import checked_seeds
from zork_mcp.domain.llm.budget import Budget, Spend, dollars
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.episodes import Cell, EpisodeSpec, EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.scheduler import Scheduler, SweepState
from zork_mcp.domain.text.inert import inert
from zork_mcp.ports.result_store import ResultStore
from zork_mcp.ports.sweep_backend import SweepBackend

DEFAULT_RESULTS = Path("eval/results.sqlite")
DEFAULT_PARALLEL = 16  # episodes at once: an LLM-bound sweep waits, it does not compute


def sweep_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zork-mcp eval",
        allow_abbrev=False,
        description="Play many episodes per configuration (models x MCP modes x history "
        "modes) in parallel, store one row per episode in SQLite, and report mean scores with "
        "95% bootstrap CIs and the MCP on minus off difference. `zork-mcp eval report "
        "RESULTS` reports on stored results. Flags override the --sweep file.",
    )
    p.add_argument("--sweep", type=Path, help="TOML sweep file (keys: " + _keys() + ")")
    p.add_argument("--name", help="sweep name; re-running a name skips its finished episodes")
    p.add_argument(
        "--model", action="append", help="provider:model, repeatable (e.g. local:my-model)"
    )
    p.add_argument("--base-url", help="base URL for models that name none (e.g. --provider local)")
    p.add_argument(
        "--mcp",
        action="append",
        help="on, off or an MCP config file; comma list, repeatable (default on,off)",
    )
    p.add_argument(
        "--history",
        action="append",
        help="what the agent sees of its past turns, per cell: "
        "window, full, state, or default (the pyproject's [tool.zorkgpt] history); comma list, "
        "repeatable (default: default)",
    )
    p.add_argument("--seeds", help="comma list of game seeds, cycled (default 12, 13, ...)")
    p.add_argument("--episodes", type=int, help="episodes per cell (default 1)")
    p.add_argument("--max-turns", type=int, help="turns per episode (default 100)")
    p.add_argument(
        "--parallel",
        type=int,
        help=f"episodes at once (default {DEFAULT_PARALLEL}: they mostly wait for the LLM)",
    )
    p.add_argument(
        "--workers",
        type=int,
        help=f"worker processes, sharing the episodes (default: the cores, {_cores()})",
    )
    p.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="PROVIDER=N",
        help="at most N episodes of this provider at once (rate limits), repeatable",
    )
    p.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="SQLite results file")
    p.add_argument("--log-dir", type=Path, help="episode logs (default: beside --results)")
    p.add_argument("--out", type=Path, help="CSV and plots (default: beside --results)")
    p.add_argument("--config", type=Path, default=Path("pyproject.toml"))
    p.add_argument(
        "--game",
        action="append",
        help="the game: zork1, zork2, zork3 or a story file's path; a comma list (or the flag "
        "again) sweeps across games, a cell per game (default: the sweep file's games, else "
        "the run's own, as for a single episode)",
    )
    p.add_argument(
        "--max-score",
        type=positive(int),
        metavar="N",
        help="an unknown story file's most points, for its normalised score (default: the "
        "sweep file's max_score, else [tool.zorkgpt] max_score; the trilogy's are known)",
    )
    p.add_argument("--plain", action="store_true", help="plain progress lines")
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local worker processes (default) or Ray tasks (pip install 'zork-mcp[ray]')",
    )
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray instance)")
    p.add_argument(
        "--resume",
        action="store_true",
        help="play failed and interrupted episodes again, on from their last checkpoint",
    )
    p.add_argument(
        "--budget-usd",
        type=positive(float),
        metavar="USD",
        help="what the whole sweep may spend on LLM calls: it starts no episode it cannot "
        "afford at its estimate, and an episode stops before a call that would not fit "
        "(default: the sweep file's budget_usd, else [tool.zorkgpt] budget_usd, else none)",
    )
    p.add_argument(
        "--budget-tokens",
        type=positive(int),
        metavar="N",
        help="the same in tokens, input and output",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print each cell's estimate and the total (tokens, and dollars with and without "
        "prompt caching) and exit before any LLM call",
    )
    p.add_argument(
        TRUST_FLAG,
        action="store_true",
        help="with --resume: load old checkpoint.pickle files (the format before "
        "checkpoint.json), which runs the code they hold: only for folders you know no MCP "
        "server or other program wrote",
    )
    return p


def report_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zork-mcp eval report",
        allow_abbrev=False,
        description="Report on stored sweep results: per-cell statistics, MCP on minus off "
        "per model, CSV (episodes.csv, cells.csv), PNG plots and, with --html, static pages.",
    )
    p.add_argument("results", type=Path, help="the SQLite results file of `zork-mcp eval`")
    p.add_argument("--sweep", help="only this sweep (default: every sweep, one report each)")
    p.add_argument("--out", type=Path, help="CSV and plots folder (default: beside RESULTS)")
    p.add_argument("--no-plots", action="store_true", help="tables and CSV only")
    p.add_argument(
        "--plain",
        action="store_true",
        help="no colour, tables laid out for 80 columns (or $COLUMNS), as in a pipe or a file",
    )
    p.add_argument(
        "--html",
        type=Path,
        metavar="DIR",
        help="also write a static HTML report, one folder per sweep (DIR/<sweep>/index.html): "
        "the tables, the plots, and every episode turn by turn",
    )
    return p


def main(argv: Sequence[str]) -> int:
    """`eval ...` or `eval report ...` (argv after `eval`)."""
    console = Console(stderr=True)
    rest = list(argv)
    try:
        if rest[:1] == ["report"]:
            return report(report_parser().parse_args(rest[1:]))
        return sweep(sweep_parser().parse_args(rest), rest)
    except ZorkMcpError as error:
        message = Text.assemble(("error:", "bold red"), " ", inert(str(error)))  # no markup
        console.print(message, highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:  # wherever it came: the scheduler stops on its own
        console.print(Text(interrupted(rest)), soft_wrap=True)
        return INTERRUPTED


def sweep(args: argparse.Namespace, argv: Sequence[str]) -> int:
    spec, parallel = sweep_spec(args)
    _check_games(spec)
    project = project_settings(args.config)  # read once: every episode is given it
    spec = with_pyproject_budget(spec, project)
    if args.dry_run or spec.budget.limits:
        estimates = cell_estimates(spec, args, project)
        if args.dry_run:
            print_estimates(screen(plain=args.plain), list(estimates.values()))
            return 0
        _affordable_models(spec, estimates)
    store = results_store(args.results)
    log_root = args.log_dir or args.results.parent / "logs"
    config = args.config.resolve() if args.config.is_file() else args.config  # none: defaults
    tasks = [
        EpisodeTask(
            episode,
            log_root.resolve(),
            config,
            project,
            spec.game,
            args.resume,
            trust_pickle=args.trust_pickle_checkpoint,
            max_score=spec.max_score,
        )
        for episode in spec.episodes_to_play()
    ]
    with sweep_progress(args.plain) as progress, ctrl_c_stops() as stop:
        scheduler = Scheduler(
            _backend(args, parallel),
            store,
            parallel,
            spec.provider_limits,
            progress,
            args.resume,
            spec.budget,
            (lambda task, played: _left(estimates[task.spec.cell], task, played))
            if spec.budget.limits
            else None,
            stop,
        )
        state = scheduler.run(tasks)
    console = screen(plain=args.plain)
    _report_sweep(console, store, spec.name, args.out or args.results.parent)
    if spec.budget.limits:
        _report_budget(console, spec, state)
    _say_where(console, args.results, spec.name)
    said = stopped(state, argv) if state.stopped else rerun(state, spec.name, argv)
    if said:
        console.print(Text(said), soft_wrap=True)
    return INTERRUPTED if state.stopped else (1 if state.failed else 0)


def cell_estimates(
    spec: Sweep, args: argparse.Namespace, project: ProjectSettings
) -> dict[Cell, RunEstimate]:
    """Each cell's estimate for its episodes (a cell per game: each game's prompt and answers),
    its servers started once to list its tools."""
    config = args.config.resolve() if args.config.is_file() else args.config
    estimates = {}
    for cell in spec.cells:
        first = EpisodeSpec(spec.name, cell, 0, spec.seed_of(0), spec.max_turns)
        task = EpisodeTask(first, Path("."), config, project, spec.game, max_score=spec.max_score)
        options = episode_options(task)
        estimates[cell] = estimate_run(options, project, cell.label, spec.episodes)
    return estimates


def _left(estimate: RunEstimate, task: EpisodeTask, played: int) -> Spend:
    """What playing `task` on from turn `played` would take, at its cell's estimate (its
    dollars without caching: the most it may cost)."""
    whole = estimate.episode
    rest = whole.turns(played + 1, task.spec.max_turns)
    usd = None
    if estimate.cost is not None and whole.tokens:
        usd = estimate.cost.plain * rest.tokens / whole.tokens
    return Spend(rest.tokens, usd)


def _affordable_models(spec: Sweep, estimates: dict[Cell, RunEstimate]) -> None:
    """A dollar budget needs every model priced: else say which are not, before any call."""
    if spec.budget.usd is None:
        return
    unpriced = {e.label.split(" ")[0]: e.unpriced for e in estimates.values() if e.cost is None}
    if unpriced:
        named = "; ".join(f"{model}: {why}" for model, why in unpriced.items())
        raise ConfigurationError(
            f"A dollar budget needs priced models, and these are not: {named}. Give a token "
            "budget instead (--budget-tokens or budget_tokens), or leave those models out."
        )


def _say_where(console: Console, results: Path, name: str) -> None:
    """Where the results are, and the command that writes the HTML report of them (each path
    and command whole on its line, however wide: it is copied from there)."""
    html = results.parent / "report"
    console.print(
        Text.assemble(
            ("Results: ", "bold"),
            str(results),
            "\n",
            ("HTML report: ", "bold"),
            f"zork-mcp eval report {results} --sweep {name} --html {html}",
            "\n",
            f"  then open {html / name / 'index.html'}",
        ),
        soft_wrap=True,
    )


def _report_budget(console: Console, spec: Sweep, state: SweepState) -> None:
    for line in budget_report(spec.budget, state):
        console.print(line, highlight=False)


def budget_report(budget: Budget, state: SweepState) -> list[str]:
    """What the sweep spent of its budget; what it left unplayed, what the estimates say
    that needs and what was left, and the budget that would play it on."""
    lines = [f"Budget: {budget.describe(state.spent)} spent."]
    if not state.unplayed:
        return lines
    one = state.unplayed == 1
    left = budget.left(state.spent)
    head = f"{state.unplayed} episode{'' if one else 's'} left unplayed or stopped by the budget"
    if state.least is None:
        why = ""
    elif one:
        why = f": it needed about {_amount(budget, state.least)} at its estimate, with "
        why += f"{_amount(budget, left)} left"
    else:
        why = (
            f": the least of them needed about {_amount(budget, state.least)} at its "
            f"estimate, with {_amount(budget, left)} left, and all of them about "
            f"{_amount(budget, state.needed)}"
        )
    them = "it on from its checkpoint" if one else "them on from their checkpoints"
    lines.append(
        f"{head}{why}. To play {them}, run the same sweep again with --resume and "
        f"{_raised(budget, state.spent + state.needed)}."
    )
    return lines


def _amount(budget: Budget, spend: Spend) -> str:
    """`spend` in the budget's units: dollars, tokens, or both (never below 0)."""
    parts = [dollars(max(spend.usd or 0.0, 0.0))] if budget.usd is not None else []
    if budget.tokens is not None:
        parts.append(f"{max(spend.tokens, 0):,} tokens")
    return ", ".join(parts)


def _raised(budget: Budget, total: Spend) -> str:
    """The flags of the budget's limits, each at what would play everything on."""
    flags = []
    if budget.usd is not None:
        flags.append(f"--budget-usd {math.ceil((total.usd or 0.0) * 100) / 100:.2f} or more")
    if budget.tokens is not None:
        flags.append(f"--budget-tokens {total.tokens} or more")
    return " and ".join(flags)


def _backend(args: argparse.Namespace, parallel: int) -> SweepBackend:
    if args.backend == "ray":
        return sweep_backend(RayActors(parallel, args.address, args.workers), play_episode)
    if args.address:
        raise ConfigurationError("--address is for --backend ray.")
    workers = args.workers or _cores()
    if workers < 1:
        raise ConfigurationError("--workers must be at least 1.")
    workers = min(workers, parallel)
    return sweep_backend(LocalWorkers(workers, -(-parallel // workers)), play_episode)


def sweep_spec(args: argparse.Namespace) -> tuple[Sweep, int]:
    fields: dict[str, Any] = {}
    if args.sweep:
        if not args.sweep.is_file():
            raise ConfigurationError(f"The sweep file {args.sweep} does not exist.")
        fields = sweep_from_toml(args.sweep.read_text(encoding="utf-8"), str(args.sweep))
    fields |= _flag_fields(args)
    fields.setdefault("name", args.sweep.stem if args.sweep else "sweep")
    if "models" not in fields:
        raise ConfigurationError("Name at least one model: --model provider:model.")
    if args.base_url:
        fields["models"] = tuple(_with_base(m, args.base_url) for m in fields["models"])
    parallel = fields.pop("parallel", None) or DEFAULT_PARALLEL
    if parallel < 1:
        raise ConfigurationError("--parallel must be at least 1.")
    return Sweep(**fields), parallel


def with_pyproject_budget(spec: Sweep, project: ProjectSettings) -> Sweep:
    """The sweep's budget: its flags' or its file's, else the pyproject's [tool.zorkgpt]."""
    if spec.budget.limits:
        return spec
    budget = project.budget()
    return replace(spec, budget_usd=budget.usd, budget_tokens=budget.tokens)


def _flag_fields(args: argparse.Namespace) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if args.name:
        fields["name"] = args.name
    if args.model:
        fields["models"] = tuple(model_spec(m) for m in args.model)
    if args.mcp:
        fields["mcp"] = parse_mcp_modes(m for flag in args.mcp for m in flag.split(","))
    if args.history:
        fields["history"] = parse_history_modes(m for flag in args.history for m in flag.split(","))
    if args.seeds:
        fields["seeds"] = checked_seeds(_integers(args.seeds, "--seeds"), "--seeds")
    if args.game:
        fields["games"] = parse_games(g for flag in args.game for g in _games_in(flag))
    for key in ("episodes", "max_turns", "parallel", "budget_usd", "budget_tokens", "max_score"):
        if getattr(args, key) is not None:
            fields[key] = getattr(args, key)
    if args.limit:
        fields["provider_limits"] = dict(_limit(text) for text in args.limit)
    return fields


def _games_in(flag: str) -> list[str]:
    """A comma list of games, or one story file whose path holds a comma."""
    return [flag] if Path(flag).is_file() else flag.split(",")


def _check_games(spec: Sweep) -> None:
    """Each game of the sweep is one (a known name, or a story file that reads as one), said
    before any episode is played rather than in every episode's error."""
    for game in spec.games:
        find_story(game, max_score=spec.max_score)


def _with_base(model: ModelSpec, base_url: str) -> ModelSpec:
    return model if model.base_url else replace(model, base_url=base_url)


def _limit(text: str) -> tuple[str, int]:
    provider, sep, number = text.partition("=")
    if not sep:
        raise ConfigurationError(f"--limit {text}: write PROVIDER=N, e.g. --limit openrouter=2.")
    return provider, next(iter(_integers(number, f"--limit {text}")))


def _integers(text: str, flag: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as e:
        raise ConfigurationError(f"{flag}: expected whole numbers, got '{text}'.") from e


def _report_sweep(console: Console, store: ResultStore, name: str, out: Path) -> None:
    records = store.episodes(name)
    if records:
        from zork_mcp.app.sweep.report import render  # numpy, scipy: once the sweep is done

        render(console, records, title=name)
        _export(console, records, out / name, plots=True)


def report(args: argparse.Namespace) -> int:
    from zork_mcp.app.sweep.report import render

    store = results_store(args.results, existing=True)
    names = [args.sweep] if args.sweep else store.sweeps()
    console = screen(plain=args.plain)
    for name in names:
        records = store.episodes(name)
        if not records:
            raise ConfigurationError(f"No episodes of sweep '{name}' in {args.results}.")
        render(console, records, title=name)
        _export(console, records, (args.out or args.results.parent) / name, not args.no_plots)
        if args.html:
            from zork_mcp.app.sweep.html_report import write_html  # Jinja2 only when asked

            index = write_html(records, args.html / name, name)
            console.print(f"wrote {index}", highlight=False)
    return 0


def _export(console: Console, records: list, directory: Path, plots: bool) -> None:
    from zork_mcp.app.sweep.report import write_csv, write_plots

    files = write_csv(records, directory) + (write_plots(records, directory) if plots else [])
    console.print("wrote " + ", ".join(str(f) for f in files), highlight=False)


def _cores() -> int:
    return max(1, os.cpu_count() or 1)


def _keys() -> str:
    from zork_mcp.app.sweep.sweep import SWEEP_KEYS

    return ", ".join(sorted(SWEEP_KEYS))
