"""`zork-mcp eval report RESULTS --html DIR`: a sweep as static pages, browsable with no
server. `index.html` holds the cells (each named with its set-up), the MCP differences, the
play and memory metrics (each explained on the page; a CI over too few episodes marked as
such), the plots and a row per episode (filtered by cell, searched and sorted in the page);
`episodes/<key>.html` holds one episode's map and its turns, from its log folder when it is
there, else from its stored turns. A sweep over several games has a section per game (its
cells, its MCP differences, its play and memory), then MCP on minus off pooled over games."""

from __future__ import annotations

import functools
import itertools
import shutil
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from zork_mcp.app import bootstrap
from zork_mcp.app.episode_view import EpisodeView, TurnView, episode_view
from zork_mcp.app.sweep.map_svg import map_svg, steps_of
from zork_mcp.app.sweep.report import (
    COST_CAPTION,
    COST_PARTS,
    DIGITS,
    MEMORY_PLAY,
    MIN_CI_EPISODES,
    PLAY,
    POOLED_CAPTION,
    CellStats,
    DifferenceRow,
    GameStats,
    cell_stats,
    ci_text,
    difference_rows,
    extensions,
    game_stats,
    pooled_rows,
    write_plots,
)
from zork_mcp.domain.episode.episode_map import EpisodeMap
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.errors import ZorkMcpError
from zork_mcp.domain.facts.episode_facts import EpisodeStarted
from zork_mcp.domain.facts.events import LoggedEvent
from zork_mcp.domain.llm.budget import dollars
from zork_mcp.domain.sweep.metrics import BY_NAME, METRICS, values
from zork_mcp.domain.sweep.records import EpisodeRecord

FOLD_CHARS = 300  # a tool result or reasoning longer than this starts folded

PLOTS = {  # what each plot of `write_plots` shows
    "score_over_turns.png": "Per cell, the mean score after each turn with its 95% CI band "
    "(an episode that ended keeps its last score).",
    "rooms_over_turns.png": "Per cell, the mean number of rooms visited so far after each "
    "turn, with its 95% CI band.",
    "final_scores.png": "Per cell, the final scores of its finished episodes: the box holds "
    "the middle half, the line is the median, the triangle the mean (over several games, each "
    "score over its game's maximum).",
    "tool_use.png": "Per cell, each tool's calls per episode; the hatched part failed.",
}


def explained(name: str) -> str:
    """What a metric counts and from what."""
    return BY_NAME[name].meaning


def ci_sizes(records: Sequence[EpisodeRecord]) -> dict[str, dict[str, int]]:
    """Per cell and metric, the finished episodes with a value of it: the n of its CI."""
    cells: dict[str, list[EpisodeRecord]] = {}
    for record in records:
        cells.setdefault(record.cell, [])
        if not record.failed:
            cells[record.cell].append(record)
    return {
        cell: {metric.name: len(values(done, metric)) for metric in METRICS}
        for cell, done in cells.items()
    }


def sweep_heading(name: str) -> str:
    """`Sweep web` for the sweep named web; a name that says sweep already stands alone
    (the default sweep's page read `Sweep sweep`)."""
    named = name if "sweep" in name.lower() else f"Sweep {name}"
    return named[:1].upper() + named[1:]


@dataclass(frozen=True)
class GameSection:
    """One game's part of the index: its cells, MCP differences and extensions. The one
    section of a one-game sweep has no heading and the page's own ids, as before games."""

    game: GameStats | None  # None: the sweep's only game
    cells: list[CellStats]
    differences: list[DifferenceRow]
    extensions: list[str]

    @property
    def suffix(self) -> str:
        """What its tables' ids end with: nothing for a sweep's only game, else its key."""
        return "" if self.game is None else f"-{self.game.key}"


def game_sections(records: Sequence[EpisodeRecord]) -> list[GameSection]:
    cells, games = cell_stats(records), game_stats(records)
    if len(games) == 1:
        return [GameSection(None, cells, difference_rows(records), extensions(records))]
    sections = []
    for game in games:
        played = [r for r in records if r.game_key == game.key]
        mine = [c for c in cells if c.game == game.key]
        sections.append(GameSection(game, mine, difference_rows(played), extensions(played)))
    return sections


def write_html(records: Sequence[EpisodeRecord], directory: Path, title: str) -> Path:
    """The report's pages (and its plots) in `directory`; returns its index page."""
    pages = directory / "episodes"
    shutil.rmtree(pages, ignore_errors=True)
    pages.mkdir(parents=True)
    plots = [(path.name, *_png_size(path)) for path in write_plots(records, directory)]
    ordered = sorted(records, key=lambda r: (r.cell, r.index))
    for _, group in itertools.groupby(ordered, key=lambda r: r.cell):
        siblings = list(group)
        for at, record in enumerate(siblings):
            previous = siblings[at - 1].key if at > 0 else None
            after = siblings[at + 1].key if at + 1 < len(siblings) else None
            view, drawn = _read(record)
            page = episode_page(title, record, view, previous, after, drawn)
            (pages / f"{record.key}.html").write_text(page, encoding="utf-8")
    index = directory / "index.html"
    index.write_text(
        _environment()
        .get_template("index.html.j2")
        .render(
            title=title,
            heading=sweep_heading(title),
            cells=cell_stats(records),
            sections=game_sections(records),
            games=game_stats(records),
            pooled=pooled_rows(records),
            pooled_caption=POOLED_CAPTION,
            sizes=ci_sizes(records),
            play=PLAY,
            memory=MEMORY_PLAY,
            digits=DIGITS,
            metrics=BY_NAME,
            explained=explained,
            min_ci=MIN_CI_EPISODES,
            plots=plots,
            captions=PLOTS,
            episodes=ordered,
            cost_parts=COST_PARTS,
            cost_caption=COST_CAPTION,
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
    drawn: str = "",
) -> str:
    """One episode's page; every text in it (the LLM's, the game's, a server's) escaped.
    `drawn` is its map as SVG (`map_svg`), from its log if `view` has the log's start."""
    return (
        _environment()
        .get_template("episode.html.j2")
        .render(
            title=title,
            heading=sweep_heading(title),
            record=record,
            view=view,
            previous=previous,
            next=after,
            fold=FOLD_CHARS,
            drawn=Markup(drawn),  # map_svg escapes every name it draws
            from_log=view.start is not None,
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
    environment.filters["dollars"] = dollars
    environment.filters["dash"] = lambda value: "-" if value is None else value  # not known
    return environment


def _png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height, from its IHDR chunk (the page gives the browser its aspect
    ratio before the image loads)."""
    with path.open("rb") as f:
        head = f.read(24)
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _events(record: EpisodeRecord) -> list[LoggedEvent]:
    try:
        return list(bootstrap.episode_events(Path(record.log_dir)))
    except (ZorkMcpError, OSError):
        return []


def _read(record: EpisodeRecord) -> tuple[EpisodeView, str]:
    """The episode turn by turn and its map as SVG: from its log, else its stored turns."""
    events = _events(record)
    view = episode_view(events) if events else None
    if view is not None and view.turns and view.start is not None:
        start = next(e.payload for e in events if isinstance(e.payload, EpisodeStarted))
        here = Place(start.room, start.location)  # the first start: a resumed one goes on
        played = [_played(turn) for turn in view.turns]
        drawn = map_svg(EpisodeMap.of(here, played, record.profile), steps_of(here, played))
        return view, drawn
    view = _stored_view(record)
    played = [_played(turn) for turn in view.turns]
    nowhere = Place("")  # stored turns keep no start, and no command: exits are unlabelled
    episode_map = EpisodeMap.of(nowhere, played, record.profile)
    drawn = map_svg(episode_map, steps_of(nowhere, played), ways_known=False)
    return view, drawn


def _played(turn: TurnView) -> PlayedTurn:
    facts = turn.facts
    return PlayedTurn(
        turn=facts.turn,
        command=turn.action,
        answer=turn.observation,
        place=Place(facts.room, facts.location),
        score=facts.score,
        score_change=turn.score_change,
        died=facts.died,
    )


def _view_of(record: EpisodeRecord) -> EpisodeView:
    """The episode's log read turn by turn, or its stored turns if the log is not there."""
    return _read(record)[0]


def _stored_view(record: EpisodeRecord) -> EpisodeView:
    turns = record.trajectory
    return EpisodeView(
        turns=[TurnView(t, turns[i - 1] if i else None) for i, t in enumerate(turns)]
    )
