"""The sweep report: per-cell statistics, MCP on minus off per model, CSV and PNG plots."""

from __future__ import annotations

import csv
import math
import statistics as pystats
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from zork_mcp.evaluation.records import COLUMNS as RECORD_COLUMNS
from zork_mcp.evaluation.records import EpisodeRecord
from zork_mcp.evaluation.statistics import Estimate, difference_ci, mean_ci, mean_curve


@dataclass(frozen=True)
class CellStats:
    cell: str
    model: str
    mcp: str
    episodes: int
    failures: int
    mean_score: Estimate
    median_score: float
    max_score: int
    mean_moves: float
    tokens_in: float
    tokens_out: float
    tokens_cached: float
    cost_usd: float | None
    tool_calls_per_turn: float


@dataclass(frozen=True)
class McpDifference:
    model: str
    mcp: str
    difference: Estimate


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
        episodes=len(group),
        failures=len(group) - len(done),
        mean_score=mean_ci(scores),
        median_score=pystats.median(scores) if scores else math.nan,
        max_score=max(scores, default=0),
        mean_moves=_mean([r.moves for r in done]),
        tokens_in=_mean([r.prompt_tokens for r in done]),
        tokens_out=_mean([r.completion_tokens for r in done]),
        tokens_cached=_mean([r.cached_tokens for r in done]),
        cost_usd=_mean(costs) if costs else None,
        tool_calls_per_turn=sum(r.tool_calls for r in done) / turns if turns else 0.0,
    )


def mcp_differences(records: Sequence[EpisodeRecord]) -> list[McpDifference]:
    """Per model, each MCP mode's final score minus MCP off's, with a bootstrap CI."""
    done = _done(records)
    models = dict.fromkeys(r.model for r in done)
    result = []
    for model in models:
        off = [r.score for r in done if r.model == model and r.mcp == "off"]
        modes = dict.fromkeys(r.mcp for r in done if r.model == model and r.mcp != "off")
        for mode in modes if off else ():
            on = [r.score for r in done if r.model == model and r.mcp == mode]
            result.append(McpDifference(model, mode, difference_ci(on, off)))
    return result


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _ci(estimate: Estimate) -> str:
    if math.isnan(estimate.value):
        return "-"
    if math.isnan(estimate.low):
        return f"{estimate.value:.1f}"
    return f"{estimate.value:.1f} [{estimate.low:.1f}, {estimate.high:.1f}]"


def render(console: Console, records: Sequence[EpisodeRecord], title: str = "Sweep") -> None:
    table = Table(title=f"{title}: score per cell (95% bootstrap CI over finished episodes)")
    for header in (
        "cell", "episodes", "failed", "mean score", "median", "max", "moves",
        "tokens in/out/cached per ep", "$ per ep", "tools/turn",
    ):  # fmt: skip
        table.add_column(header, justify="left" if header == "cell" else "right")
    for s in cell_stats(records):
        table.add_row(
            s.cell, str(s.episodes), str(s.failures), _ci(s.mean_score),
            f"{s.median_score:g}", str(s.max_score), f"{s.mean_moves:.1f}",
            f"{s.tokens_in:.0f}/{s.tokens_out:.0f}/{s.tokens_cached:.0f}",
            "-" if s.cost_usd is None else f"{s.cost_usd:.4f}", f"{s.tool_calls_per_turn:.2f}",
        )  # fmt: skip
    console.print(table)
    differences = mcp_differences(records)
    if differences:
        diff = Table(title="MCP on minus off, final score (95% bootstrap CI)")
        for header in ("model", "mcp", "difference", "CI excludes 0"):
            diff.add_column(header)
        for d in differences:
            excludes = "-" if math.isnan(d.difference.low) else str(not d.difference.includes(0))
            diff.add_row(d.model, d.mcp, _ci(d.difference), excludes)
        console.print(diff)


def write_csv(records: Sequence[EpisodeRecord], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    episodes, cells = directory / "episodes.csv", directory / "cells.csv"
    with episodes.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(RECORD_COLUMNS)
        writer.writerows([getattr(r, c) for c in RECORD_COLUMNS] for r in records)
    with cells.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        stats = cell_stats(records)
        writer.writerow([*_flat_names(), "mean_low", "mean_high"])
        for s in stats:
            row = asdict(s)
            mean = row.pop("mean_score")
            writer.writerow([*row.values(), mean["value"], mean["low"], mean["high"]])
    return [episodes, cells]


def _flat_names() -> list[str]:
    names = [n for n in CellStats.__dataclass_fields__ if n != "mean_score"]
    return [*names, "mean_score"]


def write_plots(records: Sequence[EpisodeRecord], directory: Path) -> list[Path]:
    """Mean score over turns per cell (with its CI band) and the final-score distribution."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    done = _done(records)
    cells = list(dict.fromkeys(r.cell for r in done))
    curves, finals = directory / "score_over_turns.png", directory / "final_scores.png"
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=80)
    for cell in cells:
        curve = mean_curve([[p.score for p in r.trajectory] for r in done if r.cell == cell])
        turns = range(1, len(curve) + 1)
        axes.plot(turns, [e.value for e in curve], label=cell)
        axes.fill_between(turns, [e.low for e in curve], [e.high for e in curve], alpha=0.2)
    axes.set(xlabel="turn", ylabel="mean score", title="Mean score over turns (95% CI)")
    if cells:
        axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(curves)
    plt.close(figure)
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=80)
    axes.boxplot([[r.score for r in done if r.cell == c] for c in cells], showmeans=True)
    axes.set_xticks(range(1, len(cells) + 1), cells, rotation=15, fontsize="small")
    axes.set(ylabel="final score", title="Final score per cell")
    figure.tight_layout()
    figure.savefig(finals)
    plt.close(figure)
    return [curves, finals]
