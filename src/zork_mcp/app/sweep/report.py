"""The sweep report: per-cell statistics, MCP on minus off per model and history mode, CSV
and PNG plots; each cell named with its set-up in words. A sweep over several games reports
each game's cells and differences apart, and MCP on minus off pooled over the games on the
normalised score (each game's score over its own maximum).

The metrics and how an episode's value of each is read are `domain/sweep/metrics.py`'s; this
module lays them out for the terminal, the CSV files and the plots.
"""

from __future__ import annotations

import csv
import itertools
import math
import statistics as pystats
import string
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from zork_mcp.app.tables import Grid
from zork_mcp.domain.episode.turn_facts import ToolUse
from zork_mcp.domain.llm.budget import dollars
from zork_mcp.domain.llm.messages import CostParts
from zork_mcp.domain.sweep.metrics import (
    BY_NAME,
    COMPARED,
    MEMORY,
    METRICS,
    POOLED,
    Metric,
    by_game,
    difference,
    estimates,
    rooms_curve,
    tool_use,
    values,
)
from zork_mcp.domain.sweep.records import COLUMNS as RECORD_COLUMNS
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.sweep.statistics import Estimate, mean_curve


@dataclass(frozen=True)
class CellStats:
    cell: str
    model: str
    mcp: str
    history: str | None  # None: the run's own
    game: str  # its game's key
    setup: str  # in words ("" where no episode of the cell knows it)
    episodes: int
    failures: int
    median_score: float
    max_score: int
    mean_moves: float
    tokens_in: float
    tokens_out: float
    tokens_cached: float
    cost_usd: float | None
    tool_calls_per_turn: float
    metrics: dict[str, Estimate]  # by metric name (domain.sweep.metrics.METRICS)
    tool_use: tuple[ToolUse, ...]
    cost_parts: CostParts | None = None  # mean per episode, by part (None: none split)
    unpriced: str | None = None  # why some of its episodes have no cost

    @property
    def cost_text(self) -> str:
        """Its mean cost per episode, or why it has none ("unpriced: ...")."""
        if self.cost_usd is None:
            return f"unpriced: {self.unpriced}" if self.unpriced else "-"
        return dollars(self.cost_usd) + (" (some unpriced)" if self.unpriced else "")

    @property
    def mean_score(self) -> Estimate:
        return self.metrics["final_score"]


@dataclass(frozen=True)
class McpDifference:
    model: str
    mcp: str
    difference: Estimate
    metric: str = "final_score"
    history: str | None = None  # the cells' history mode (None: the run's own)
    game: str | None = None  # the game both cells played (None: pooled over the sweep's games)

    @property
    def group(self) -> str:
        """The model, and the history mode both cells were played with if a sweep chose one."""
        return self.model if self.history is None else f"{self.model} history={self.history}"


def _done(records: Sequence[EpisodeRecord]) -> list[EpisodeRecord]:
    return [r for r in records if not r.failed]


def cell_stats(records: Sequence[EpisodeRecord]) -> list[CellStats]:
    """Scores and costs over the episodes that finished; failed ones are counted apart."""
    cells: dict[str, list[EpisodeRecord]] = {}
    for record in records:
        cells.setdefault(record.cell, []).append(record)
    return [_one_cell(group) for group in cells.values()]


def _one_cell(group: list[EpisodeRecord]) -> CellStats:
    done = _done(group)
    scores = [r.score for r in done]
    costs = [r.cost_usd for r in done if r.cost_usd is not None]
    turns = sum(r.turns for r in done)
    return CellStats(
        cell=group[0].cell,
        model=group[0].model,
        mcp=group[0].mcp,
        history=group[0].history,
        game=group[0].game_key,
        setup=next((r.setup for r in group if r.setup), ""),
        episodes=len(group),
        failures=len(group) - len(done),
        median_score=pystats.median(scores) if scores else math.nan,
        max_score=max(scores, default=0),
        mean_moves=_mean([r.moves for r in done]),
        tokens_in=_mean([r.prompt_tokens for r in done]),
        tokens_out=_mean([r.completion_tokens for r in done]),
        tokens_cached=_mean([r.cached_tokens for r in done]),
        cost_usd=_mean(costs) if costs else None,
        tool_calls_per_turn=sum(r.tool_calls for r in done) / turns if turns else 0.0,
        metrics=estimates(done),
        tool_use=tool_use(done),
        cost_parts=_mean_parts([r.cost_parts for r in done]),
        unpriced=next((r.unpriced for r in done if r.unpriced), None),
    )


def _mean_parts(parts: Sequence[CostParts | None]) -> CostParts | None:
    known = [p for p in parts if p is not None]
    if not known:
        return None
    total = sum(known, CostParts())
    n = len(known)
    return CostParts(
        total.input / n, total.cached_input / n, total.cache_write / n, total.output / n
    )


def mcp_differences(
    records: Sequence[EpisodeRecord], metrics: Sequence[str] = COMPARED
) -> list[McpDifference]:
    """Per game, model and history mode, each MCP mode minus MCP off, for the final score,
    the rooms visited and the memory metrics (each with a bootstrap CI); a metric no episode
    of the pair has is left out."""
    return [
        found
        for game, played in by_game(records).items()
        for found in _differences(played, metrics, game)
    ]


def pooled_differences(records: Sequence[EpisodeRecord]) -> list[McpDifference]:
    """Per model and history mode, each MCP mode minus MCP off over every game's episodes
    together, on the normalised score (the only one games share a scale of); none for a
    sweep of one game, whose own table says it all."""
    return _differences(records, POOLED, None) if len(by_game(records)) > 1 else []


def _differences(
    records: Sequence[EpisodeRecord], metrics: Sequence[str], game: str | None
) -> list[McpDifference]:
    done = _done(records)
    groups = dict.fromkeys((r.model, r.history) for r in done)
    result = []
    for model, history in groups:
        mine = [r for r in done if (r.model, r.history) == (model, history)]
        off = [r for r in mine if r.mcp == "off"]
        modes = dict.fromkeys(r.mcp for r in mine if r.mcp != "off")
        for mode, metric in itertools.product(modes if off else (), metrics):
            on = [r for r in mine if r.mcp == mode]
            estimate = difference(on, off, metric)
            if not math.isnan(estimate.value):
                result.append(McpDifference(model, mode, estimate, metric, history, game))
    return result


# A CI is shown as trustworthy only over this many episodes or more. A percentile bootstrap
# never reaches past the values it resamples: over 2 episodes its 95% interval is about their
# range, which holds the true mean about half the time; it comes near 95% from about 10 on.
MIN_CI_EPISODES = 10


@dataclass(frozen=True)
class DifferenceRow:
    """A row of the MCP table: the difference, and how many episodes each side has."""

    difference: McpDifference
    treated: int
    control: int

    @property
    def few(self) -> bool:
        return min(self.treated, self.control) < MIN_CI_EPISODES

    @property
    def verdict(self) -> str:
        """Whether the CI excludes 0, or why no verdict is drawn."""
        if self.few:
            return f"{self.short_verdict} for a CI, {MIN_CI_EPISODES} or more needed"
        estimate = self.difference.difference
        return "-" if math.isnan(estimate.low) else str(not estimate.includes(0))

    @property
    def short_verdict(self) -> str:
        """The verdict in a terminal's cell: `n = 2: too few`, the rule in the caption."""
        if not self.few:
            return self.verdict
        n = (
            f"{self.treated}"
            if self.treated == self.control
            else f"{self.treated} {self.difference.mcp}, {self.control} off"
        )
        return f"n = {n}: too few"


def difference_rows(
    records: Sequence[EpisodeRecord], differences: Sequence[McpDifference] | None = None
) -> list[DifferenceRow]:
    """The rows of the MCP table: `differences` (by default each game's, `mcp_differences`)
    with the episodes each side has."""
    done = [r for r in records if not r.failed]

    def n(d: McpDifference, mcp: str) -> int:
        side = [
            r
            for r in done
            if (r.model, r.history, r.mcp) == (d.model, d.history, mcp)
            and d.game in (None, r.game_key)
        ]
        return len(values(side, BY_NAME[d.metric]))

    found = mcp_differences(records) if differences is None else differences
    return [DifferenceRow(d, n(d, d.mcp), n(d, "off")) for d in found]


def pooled_rows(records: Sequence[EpisodeRecord]) -> list[DifferenceRow]:
    """The rows of the pooled MCP table (`pooled_differences`)."""
    return difference_rows(records, pooled_differences(records))


@dataclass(frozen=True)
class GameStats:
    """One game of a sweep: what its episodes are scored over, and their normalised score."""

    key: str
    name: str
    max_score: int | None  # None: not known (its normalised score is then not either)
    cells: int
    episodes: int
    failures: int
    normalized: Estimate  # the mean final score over the game's maximum, with its CI


def game_stats(records: Sequence[EpisodeRecord]) -> list[GameStats]:
    """Per game, its cells, episodes and the mean normalised score of its finished ones."""
    result = []
    for key, played in by_game(records).items():
        profile, done = played[0].profile, _done(played)
        result.append(
            GameStats(
                key=key,
                name=profile.name,
                max_score=profile.max_score,
                cells=len({r.cell for r in played}),
                episodes=len(played),
                failures=len(played) - len(done),
                normalized=estimates(done)["normalized_score"],
            )
        )
    return result


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def ci_text(estimate: Estimate, digits: int = 1) -> str:
    """`mean [low, high]`, `mean` alone where there is no interval, `-` for no value."""
    if math.isnan(estimate.value):
        return "-"
    if math.isnan(estimate.low):
        return f"{estimate.value:.{digits}f}"
    return f"{estimate.value:.{digits}f} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"


def dollars_text(estimate: Estimate) -> str:
    """A cost's `mean [low, high]`, each as every dollar amount is written (`dollars`)."""
    if math.isnan(estimate.value):
        return "-"
    if math.isnan(estimate.low):
        return dollars(estimate.value)
    return f"{dollars(estimate.value)} [{dollars(estimate.low)}, {dollars(estimate.high)}]"


def metric_text(name: str, estimate: Estimate) -> str:
    """A metric's mean and CI, in dollars for the cost, else to its digits."""
    return dollars_text(estimate) if name == "cost_usd" else ci_text(estimate, DIGITS.get(name, 1))


DIGITS = {
    "normalized_score": 3,
    "invalid_rate": 3,
    "unreadable_rate": 3,
    "cost_usd": 4,
    "latency_p50": 2,
}
DIGITS |= {"latency_p95": 2, "tokens": 0, "repeated_rate": 3}
# the score table has the final score; the memory table what the turns say of memory at work
PLAY = [m for m in METRICS if m.name != "final_score" and m.name not in MEMORY]
MEMORY_PLAY = [BY_NAME[name] for name in MEMORY]


def cell_name(stats: CellStats) -> Text:
    """The cell's label, and under it its set-up in words (never read as markup)."""
    name = Text(stats.cell)
    if stats.setup:
        name.append("\n" + stats.setup, style="dim")
    return name


def cell_keys(cells: Sequence[CellStats]) -> dict[str, str]:
    """A short key per cell (A, B, … Z, AA, AB, …): the tables name cells by it, the legend
    says which is which, so a long label never squeezes the numbers."""
    letters = string.ascii_uppercase
    names = itertools.chain(letters, (a + b for a, b in itertools.product(letters, repeat=2)))
    return {stats.cell: key for stats, key in zip(cells, names, strict=False)}


def legend(cells: Sequence[CellStats], keys: dict[str, str]) -> Table:
    table = Table(title="cells")
    table.add_column("key")
    table.add_column("cell (its set-up under it)", overflow="fold")
    for stats in cells:
        table.add_row(keys[stats.cell], cell_name(stats))
    return table


def render(console: Console, records: Sequence[EpisodeRecord], title: str = "Sweep") -> None:
    """The report's tables, each fitted to the console's width (`Grid.tables`); cells named by
    key, the legend first. Over several games: the games, then each game's tables, then MCP
    on minus off pooled over the games."""
    cells = cell_stats(records)
    keys = cell_keys(cells)
    console.print(legend(cells, keys))
    games = game_stats(records)
    if len(games) == 1:
        _render_cells(console, records, cells, keys, title, DIFFERENCE_TITLE)
        return
    _print(console, [games_grid(f"{title}: games", games)])
    for game in games:
        played = [r for r in records if r.game_key == game.key]
        mine = [s for s in cells if s.game == game.key]
        named = f"{title}, {game.name}"
        _render_cells(console, played, mine, keys, named, f"{named}: {DIFFERENCE_TITLE}")
    pooled = pooled_rows(records)
    if pooled:
        _print(console, [difference_grid(pooled, POOLED_TITLE, POOLED_CAPTION)])


POOLED_TITLE = "MCP on minus off, pooled over the games (95% bootstrap CI)"
POOLED_CAPTION = (
    "every game's episodes together, each scored over its own game's maximum: the maxima "
    "differ (Zork I 350, Zork II 400, Zork III 7), so only the normalised score pools"
)


def _print(console: Console, grids: Sequence[Grid]) -> None:
    for grid in grids:
        for table in grid.tables(console.width):
            console.print(table)


def _render_cells(
    console: Console,
    records: Sequence[EpisodeRecord],
    cells: Sequence[CellStats],
    keys: dict[str, str],
    title: str,
    difference_title: str,
) -> None:
    """One game's tables: its cells' scores and costs, its MCP differences, its play."""
    grids = [
        score_grid(
            f"{title}: score per cell (95% bootstrap CI over finished episodes)", cells, keys
        ),
        cost_grid(f"{title}: LLM cost per episode, by part", cells, keys),
    ]
    differences = difference_rows(records)
    if differences:
        grids.append(difference_grid(differences, difference_title))
    _print(console, grids)
    for line in extensions(records):
        console.print(line)
    _print(
        console,
        [
            metric_grid(f"{title}: play per cell", cells, keys, PLAY),
            metric_grid(f"{title}: memory per cell", cells, keys, MEMORY_PLAY, explained=True),
        ],
    )


DIFFERENCE_TITLE = "MCP on minus off (95% bootstrap CI)"


def games_grid(title: str, games: Sequence[GameStats]) -> Grid:
    """Per game: its maximum, cells and episodes, and its mean normalised score."""
    headers = ["game", "max score", "cells", "episodes", "failed", "final score / maximum"]
    rows: list[list[str | Text]] = [
        [
            Text(g.name),
            "-" if g.max_score is None else str(g.max_score),
            str(g.cells),
            str(g.episodes),
            str(g.failures),
            ci_text(g.normalized, DIGITS["normalized_score"]),
        ]
        for g in games
    ]
    return Grid(title, headers, rows)


def score_grid(title: str, cells: Sequence[CellStats], keys: dict[str, str]) -> Grid:
    headers = [
        "cell",
        "episodes",
        "failed",
        "mean score",
        "median",
        "max",
        "moves",
        "tokens in/out/cached per ep",
        "$ per ep",
        "tools/turn",
    ]
    return Grid(title, headers, [_score_row(s, keys[s.cell]) for s in cells])


def _score_row(s: CellStats, key: str) -> list[str | Text]:
    return [
        key,
        str(s.episodes),
        str(s.failures),
        ci_text(s.mean_score),
        f"{s.median_score:g}",
        str(s.max_score),
        f"{s.mean_moves:.1f}",
        f"{s.tokens_in:.0f}/{s.tokens_out:.0f}/{s.tokens_cached:.0f}",
        Text(s.cost_text),
        f"{s.tool_calls_per_turn:.2f}",
    ]


COST_PARTS = ("input", "cached input", "cache writes", "output")
COST_CAPTION = (
    "priced per call from genai-prices; a provider's own reported cost (OpenRouter's) wins, "
    "split as the price list splits it"
)


def cost_grid(title: str, cells: Sequence[CellStats], keys: dict[str, str]) -> Grid:
    """Per cell, the mean cost of an episode in USD and its parts (input not cached, cached
    input, cache writes, output), priced per call; "unpriced" and why where there is none."""
    rows: list[list[str | Text]] = []
    for s in cells:
        parts = astuple(s.cost_parts) if s.cost_parts else None
        split = [dollars(p) for p in parts] if parts else ["-"] * len(COST_PARTS)
        rows.append([keys[s.cell], Text(s.cost_text), *split])
    return Grid(title, ["cell", "total", *COST_PARTS], rows, caption=COST_CAPTION)


def difference_grid(
    differences: Sequence[DifferenceRow], title: str = DIFFERENCE_TITLE, caption: str | None = None
) -> Grid:
    headers = ["model", "mcp", "metric", "difference", "CI excludes 0"]
    rows: list[list[str | Text]] = []
    for row in differences:
        d = row.difference
        label = BY_NAME[d.metric].label
        shown = ci_text(d.difference, DIGITS.get(d.metric, 1))
        rows.append([Text(d.group), Text(d.mcp), label, shown, row.short_verdict])
    if any(row.few for row in differences):
        caption = "\n".join(filter(None, [caption, TOO_FEW]))
    return Grid(title, headers, rows, leading=3, caption=caption)  # a part names its metric


TOO_FEW = (
    f"too few: a side has under {MIN_CI_EPISODES} episodes, and a bootstrap CI over so few is "
    "not trusted (over 2 it holds the mean about half the time), so no verdict is drawn"
)


def metric_grid(
    title: str,
    cells: Sequence[CellStats],
    keys: dict[str, str],
    metrics: Sequence[Metric],
    *,
    explained: bool = False,
) -> Grid:
    """Per cell, each metric's mean per episode with its CI (and, explained, what each means)."""
    caption = "\n".join(f"{m.label}: {m.meaning}" for m in metrics) if explained else None
    headers = ["cell", *(metric.label for metric in metrics)]
    rows: list[list[str | Text]] = [
        [keys[s.cell], *(metric_text(m.name, s.metrics[m.name]) for m in metrics)] for s in cells
    ]
    return Grid(f"{title} (mean per episode, 95% bootstrap CI)", headers, rows, caption=caption)


def extensions(records: Sequence[EpisodeRecord]) -> list[str]:
    """A line per turn limit episodes were carried on from, and to."""
    counts = Counter((r.extended_from, r.max_turns) for r in records if r.extended_from)
    return [
        f"{n} episode{'s' * (n > 1)} extended: played to {first} turns, then carried on to {last}"
        for (first, last), n in sorted(counts.items())
    ]


EPISODE_METRICS = ("rooms_revisited", "return_turns", "repeated_rate")  # read from the turns


def write_csv(records: Sequence[EpisodeRecord], directory: Path) -> list[Path]:
    """episodes.csv (a row per episode, as stored, with its normalized score and the memory
    metrics its turns give) and cells.csv (a row per cell: its counts, then each metric's
    mean with its CI bounds)."""
    directory.mkdir(parents=True, exist_ok=True)
    episodes, cells = directory / "episodes.csv", directory / "cells.csv"
    with episodes.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([*RECORD_COLUMNS, "normalized_score", *EPISODE_METRICS])
        writer.writerows(
            [
                *(getattr(r, c) for c in RECORD_COLUMNS),
                r.normalized_score,
                *(BY_NAME[name].of(r) for name in EPISODE_METRICS),
            ]
            for r in records
        )
    rows = [_cell_row(s) for s in cell_stats(records)]
    with cells.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["cell"])
        writer.writeheader()
        writer.writerows(rows)
    return [episodes, cells]


_COUNTS = (
    "cell",
    "model",
    "mcp",
    "history",
    "game",
    "setup",
    "episodes",
    "failures",
    "median_score",
    "max_score",
)
_MEANS = ("mean_moves", "tokens_in", "tokens_out", "tokens_cached", "cost_usd", "unpriced")


def _cell_row(stats: CellStats) -> dict[str, object]:
    row = {name: getattr(stats, name) for name in (*_COUNTS, *_MEANS, "tool_calls_per_turn")}
    parts = astuple(stats.cost_parts) if stats.cost_parts else (None,) * len(COST_PARTS)
    for name, part in zip(COST_PARTS, parts, strict=True):
        row[f"cost_{name.replace(' ', '_')}_usd"] = part
    estimates = {"mean_score": stats.mean_score} | {m.name: stats.metrics[m.name] for m in METRICS}
    for name, estimate in estimates.items():
        row |= {name: estimate.value, f"{name}_low": estimate.low, f"{name}_high": estimate.high}
    return row


def write_plots(records: Sequence[EpisodeRecord], directory: Path) -> list[Path]:
    """Per cell: the mean score and rooms visited over turns (with CI bands), the final-score
    distribution, and which tools were called how often, and how often they failed."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    done = _done(records)
    by_cell = {
        cell: [r for r in done if r.cell == cell] for cell in dict.fromkeys(r.cell for r in done)
    }
    paths = [
        _curve_plot(
            plt,
            by_cell,
            lambda r: [p.score for p in r.trajectory],
            "mean score",
            "Mean score over turns (95% CI)",
            directory / "score_over_turns.png",
        ),
        _curve_plot(
            plt,
            by_cell,
            lambda r: rooms_curve(r.trajectory),
            "mean rooms visited",
            "Rooms visited over turns (95% CI)",
            directory / "rooms_over_turns.png",
        ),
    ]
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=80)
    axes.boxplot([_final_scores(group, done) for group in by_cell.values()], showmeans=True)
    axes.set_xticks(range(1, len(by_cell) + 1), list(by_cell), rotation=15, fontsize="small")
    several = len(by_game(done)) > 1
    axes.set(
        ylabel="final score / maximum" if several else "final score",
        title="Final score per cell" + (" over its game's maximum" if several else ""),
    )
    paths.append(_saved(plt, figure, directory / "final_scores.png"))
    paths.append(_tool_use_plot(plt, by_cell, directory / "tool_use.png"))
    return paths


def _final_scores(group: Sequence[EpisodeRecord], done: Sequence[EpisodeRecord]) -> list[float]:
    """A cell's final scores; over several games, each over its game's maximum (where known)."""
    if len(by_game(done)) == 1:
        return [r.score for r in group]
    return values(group, BY_NAME["normalized_score"])


def _curve_plot(
    plt: Any,
    by_cell: dict[str, list[EpisodeRecord]],
    curve: Callable[[EpisodeRecord], list[int]],
    ylabel: str,
    title: str,
    path: Path,
) -> Path:
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=80)
    for cell, group in by_cell.items():
        band = mean_curve([curve(r) for r in group])
        turns = range(1, len(band) + 1)
        axes.plot(turns, [e.value for e in band], label=cell)
        axes.fill_between(turns, [e.low for e in band], [e.high for e in band], alpha=0.2)
    axes.set(xlabel="turn", ylabel=ylabel, title=title)
    if by_cell:
        axes.legend(fontsize="small")
    return _saved(plt, figure, path)


def _tool_use_plot(plt: Any, by_cell: dict[str, list[EpisodeRecord]], path: Path) -> Path:
    """Calls per episode of each tool, per cell; the failed share of them hatched."""
    found_by_cell = {cell: tool_use(group) for cell, group in by_cell.items()}
    uses = {
        cell: {use.tool: use for use in found} for cell, found in found_by_cell.items() if found
    }
    tools = list(dict.fromkeys(tool for found in uses.values() for tool in found))
    figure, axes = plt.subplots(figsize=(6, 1.5 + 0.35 * max(1, len(tools) * len(uses))), dpi=80)
    height = 0.8 / max(1, len(uses))
    for i, (cell, found) in enumerate(uses.items()):
        episodes = max(1, len(by_cell[cell]))
        positions = [t + i * height for t in range(len(tools))]
        calls = [found[t].calls / episodes if t in found else 0 for t in tools]
        errors = [found[t].errors / episodes if t in found else 0 for t in tools]
        axes.barh(positions, calls, height, label=cell)
        axes.barh(positions, errors, height, color="none", edgecolor="black", hatch="//")
    axes.set_yticks([t + 0.4 - height / 2 for t in range(len(tools))], tools, fontsize="small")
    axes.set(xlabel="calls per episode (hatched: failed)", title="Tool use per cell")
    if tools:
        axes.legend(fontsize="small")
    return _saved(plt, figure, path)


def _saved(plt: Any, figure: Any, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path
