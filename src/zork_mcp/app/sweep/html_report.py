"""`zork-mcp eval report RESULTS --html DIR`: a sweep as static pages, browsable with no
server. `index.html` holds the cells, the MCP differences, the play metrics, the plots and
a row per episode (filtered by cell in the page); `episodes/<key>.html` holds one episode
turn by turn, from its log folder when it is there, else from its stored turns."""

from __future__ import annotations

import functools
import itertools
import shutil
from collections.abc import Sequence
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from zork_mcp.app import bootstrap
from zork_mcp.app.episode_view import EpisodeView, TurnView, episode_view
from zork_mcp.app.sweep.report import (
    DIGITS,
    PLAY,
    cell_stats,
    ci_text,
    extensions,
    mcp_differences,
    write_plots,
)
from zork_mcp.domain.errors import ZorkMcpError
from zork_mcp.domain.sweep.metrics import BY_NAME
from zork_mcp.domain.sweep.records import EpisodeRecord

FOLD_CHARS = 300  # a tool result or reasoning longer than this starts folded


def write_html(records: Sequence[EpisodeRecord], directory: Path, title: str) -> Path:
    """The report's pages (and its plots) in `directory`; returns its index page."""
    pages = directory / "episodes"
    shutil.rmtree(pages, ignore_errors=True)
    pages.mkdir(parents=True)
    plots = [path.name for path in write_plots(records, directory)]
    ordered = sorted(records, key=lambda r: (r.cell, r.index))
    for _, group in itertools.groupby(ordered, key=lambda r: r.cell):
        siblings = list(group)
        for at, record in enumerate(siblings):
            previous = siblings[at - 1].key if at > 0 else None
            after = siblings[at + 1].key if at + 1 < len(siblings) else None
            page = episode_page(title, record, _view_of(record), previous, after)
            (pages / f"{record.key}.html").write_text(page, encoding="utf-8")
    index = directory / "index.html"
    index.write_text(
        _environment()
        .get_template("index.html.j2")
        .render(
            title=title,
            cells=cell_stats(records),
            differences=mcp_differences(records),
            extensions=extensions(records),
            play=PLAY,
            digits=DIGITS,
            metrics=BY_NAME,
            plots=plots,
            episodes=ordered,
        ),
        encoding="utf-8",
    )
    return index


def episode_page(
    title: str,
    record: EpisodeRecord,
    view: EpisodeView,
    previous: str | None = None,
    after: str | None = None,
) -> str:
    """One episode's page; every text in it (the LLM's, the game's, a server's) escaped."""
    return (
        _environment()
        .get_template("episode.html.j2")
        .render(
            title=title,
            record=record,
            view=view,
            previous=previous,
            next=after,
            fold=FOLD_CHARS,
        )
    )


@functools.cache
def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("zork_mcp.app.sweep", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["ci"] = ci_text
    environment.filters["dash"] = lambda value: "-" if value is None else value  # not known
    return environment


def _view_of(record: EpisodeRecord) -> EpisodeView:
    """The episode's log read turn by turn, or its stored turns if the log is not there."""
    try:
        view = episode_view(bootstrap.episode_events(Path(record.log_dir)))
    except (ZorkMcpError, OSError):
        view = None
    if view is not None and view.turns:
        return view
    turns = record.trajectory
    return EpisodeView(
        turns=[TurnView(t, turns[i - 1] if i else None) for i, t in enumerate(turns)]
    )
