"""The live progress line and the end-of-episode summary (plain lines when not a terminal)."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console
from rich.live import Live
from rich.table import Table

from zork_mcp.app.orchestrator import TurnReport
from zork_mcp.domain.episode import EpisodeSummary


def status_text(report: TurnReport, totals: EpisodeSummary) -> str:
    observation = report.observation
    return (
        f"turn {report.turn} | {observation.room or '?'} | score {observation.score} | "
        f"moves {observation.moves} | tools {totals.tool_calls} | "
        f"tokens {totals.usage.total_tokens} | > {report.action}"
    )


class PlainProgress:
    def __init__(self, console: Console) -> None:
        self.console = console

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None:
        self.console.print(status_text(report, totals), markup=False, highlight=False)

    def close(self) -> None:
        pass


class LiveProgress:
    def __init__(self, console: Console) -> None:
        self.console = console
        self._live = Live("starting...", console=console, refresh_per_second=8, transient=True)
        self._live.start()

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None:
        self._live.update(status_text(report, totals))

    def close(self) -> None:
        self._live.stop()


def progress(plain: bool = False) -> Iterator[PlainProgress | LiveProgress]:
    """A live line on a terminal, else plain lines; stopped when the run ends."""
    console = Console()
    display = PlainProgress(console) if plain or not console.is_terminal else LiveProgress(console)
    try:
        yield display
    finally:
        display.close()


def print_summary(console: Console, summary: EpisodeSummary, log_dir: str) -> None:
    table = Table(title=f"Episode {summary.episode_id}", show_header=False)
    rows = [
        ("ended", summary.end_reason),
        ("turns", str(summary.turns)),
        ("score", str(summary.score)),
        ("moves", str(summary.moves)),
        ("room", summary.room or "?"),
        ("tool calls", str(summary.tool_calls)),
        ("tokens", f"{summary.usage.prompt_tokens} in / {summary.usage.completion_tokens} out"),
        ("wall time", f"{summary.seconds:.1f}s"),
        ("logs", log_dir),
    ]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
