"""An episode's explored map drawn as inline SVG for its HTML page: the rooms it entered on a
grid laid out by the exits' directions, the exits taken, the path walked and the deaths.

Pure: an `EpisodeMap` and the episode's steps in, SVG text out; every name in it escaped."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape

from zork_mcp.domain.episode.episode_map import EpisodeMap, MapRoom, RoomKey, room_key
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn, moves_from

Cell = tuple[int, int]  # column, row: north is up, east is right
Point = tuple[float, float]  # pixels

# Where an exit leads on the grid. Up, down, in and out have no compass point: they go
# diagonally, as a map drawn by hand puts a tree beside its path, not on it.
OFFSETS: dict[str, Cell] = {
    "north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0),
    "northeast": (1, -1), "northwest": (-1, -1), "southeast": (1, 1), "southwest": (-1, 1),
    "up": (1, -1), "down": (-1, 1), "in": (1, 1), "out": (-1, -1), "land": (0, 1),
}  # fmt: skip
SHORT = {  # as a player types them
    "north": "n",
    "south": "s",
    "east": "e",
    "west": "w",
    "northeast": "ne",
    "northwest": "nw",
    "southeast": "se",
    "southwest": "sw",
}

CELL_WIDTH, CELL_HEIGHT = 240, 100  # pixels a grid cell takes
BOX_WIDTH, BOX_HEIGHT = 176, 40  # a room's box, centred in its cell
MARGIN = 24
LABEL_CHARS = 22  # of a room's label in its box (the whole label is its tooltip)
EXIT_CHARS = 14  # of a typed command on its exit line
TURNS_SHOWN = 6  # the turns a room lists it was entered on, before "..."


@dataclass(frozen=True)
class Step:
    """One turn on the map: the room it was played from, the room it left the player in
    (None: not known), and whether the player died in it."""

    turn: int
    source: RoomKey | None
    target: RoomKey | None
    died: bool = False

    @property
    def moved(self) -> bool:
        return None not in (self.source, self.target) and self.source != self.target


def steps_of(start: Place, turns: Sequence[PlayedTurn]) -> list[Step]:
    """Each turn as a step from the room it was played in to the room it ended in."""
    return [
        Step(turn.turn, room_key(before), room_key(turn.place), turn.died)
        for before, turn in moves_from(start, turns)
    ]


def layout(episode_map: EpisodeMap, steps: Sequence[Step] = ()) -> dict[RoomKey, Cell]:
    """Each room's grid cell. The first room entered is at (0, 0); from each room placed, in
    the order first entered, its neighbours go the way their exit points (an exit into it
    counts backwards); when that cell is taken, to the free cell beside the room nearest it.
    A neighbour whose way is not known (a typed command, a move of stored turns) takes the
    free cell beside it nearest the group's first room, so such rooms wind around it. A room
    that no exit or move reaches (the player was carried there after a death) starts a new
    group to the right of the others."""
    neighbours = _neighbours(episode_map, steps)
    cells: dict[RoomKey, Cell] = {}
    for room in episode_map.rooms:
        if room.key in cells:
            continue
        anchor = cells[room.key] = _island(cells.values())
        queue = deque([room.key])
        while queue:
            key = queue.popleft()
            for other, offset in neighbours[key]:
                if other not in cells:
                    cells[other] = _placed(cells[key], offset, anchor, set(cells.values()))
                    queue.append(other)
    return cells


Offset = Cell | None  # None: the way is not known


def _neighbours(
    episode_map: EpisodeMap, steps: Sequence[Step]
) -> dict[RoomKey, list[tuple[RoomKey, Offset]]]:
    """Per room: the rooms its exits lead to, those whose exits lead to it (the offset turned
    round), then those it was walked to or from without an exit telling which way."""
    found: dict[RoomKey, list[tuple[RoomKey, Offset]]] = {r.key: [] for r in episode_map.rooms}
    joined = [
        (room.key, target, OFFSETS.get(way))
        for room in episode_map.rooms
        for way, target in room.exits.items()
        if target in found and target != room.key
    ]
    walked = [
        (step.source, step.target, None)
        for step in steps
        if step.moved and not step.died and step.source in found and step.target in found
    ]
    for source, target, offset in joined:
        found[source].append((target, offset))
    for source, target, offset in joined:
        found[target].append((source, None if offset is None else (-offset[0], -offset[1])))
    for source, target, _ in walked:
        found[source].append((target, None))
        found[target].append((source, None))
    return found


def _island(taken: Iterable[Cell]) -> Cell:
    placed = list(taken)
    return (max(x for x, _ in placed) + 2, 0) if placed else (0, 0)


def _placed(origin: Cell, offset: Offset, anchor: Cell, used: set[Cell]) -> Cell:
    """The cell `offset` away from `origin` if it is free; else the free cell nearest it that
    still lies the exit's way (west: any cell to the left, so a room entered by "w" is never
    drawn above), and whose line from `origin` crosses no room; with no offset, the free
    cell beside `origin` nearest `anchor`. Ties: top, then left."""
    if offset is None:
        return _first_free(origin, 1, anchor, used)
    wanted = (origin[0] + offset[0], origin[1] + offset[1])
    if wanted not in used:
        return wanted
    return _first_free(origin, 1, wanted, used, _the_way(offset))


def _the_way(offset: Cell) -> Callable[[Cell, Cell], bool]:
    """Whether a cell lies `offset`'s way from an origin: the same side on each axis it moves."""

    def along(origin: Cell, cell: Cell) -> bool:
        moved = (cell[0] - origin[0], cell[1] - origin[1])
        return all(o == 0 or m * o > 0 for o, m in zip(offset, moved, strict=True))

    return along


def _crosses(origin: Cell, cell: Cell, used: set[Cell]) -> bool:
    """Whether the straight line from `origin` to `cell` passes through a taken cell."""
    dx, dy = cell[0] - origin[0], cell[1] - origin[1]
    steps = math.gcd(dx, dy)
    return any(
        (origin[0] + dx // steps * k, origin[1] + dy // steps * k) in used for k in range(1, steps)
    )


def _first_free(
    centre: Cell,
    ring: int,
    toward: Cell,
    used: set[Cell],
    allowed: Callable[[Cell, Cell], bool] = lambda _origin, _cell: True,
) -> Cell:
    """In the rings around `centre` from `ring` out, the first with a free cell it `allowed`:
    its free cell nearest `toward`, one whose line crosses no room first."""
    tx, ty = toward
    while True:
        free = [c for c in _ring(centre, ring) if c not in used and allowed(centre, c)]
        if free:
            return min(
                free,
                key=lambda c: (
                    _crosses(centre, c, used),
                    (c[0] - tx) ** 2 + (c[1] - ty) ** 2,
                    c[1],
                    c[0],
                ),
            )
        ring += 1


def _ring(centre: Cell, ring: int) -> list[Cell]:
    x, y = centre
    return [
        (x + dx, y + dy)
        for dx in range(-ring, ring + 1)
        for dy in range(-ring, ring + 1)
        if max(abs(dx), abs(dy)) == ring
    ]


def map_svg(episode_map: EpisodeMap, steps: Sequence[Step], *, ways_known: bool = True) -> str:
    """The map as an `<svg>` element ("" for a map with no room). `ways_known` False (the
    steps came from stored turns, which keep no command, so the map's exits are not the
    ways taken): the path alone joins the rooms."""
    if not episode_map.rooms:
        return ""
    cells = layout(episode_map, steps)
    left = min(x for x, _ in cells.values())
    top = min(y for _, y in cells.values())
    centres = {
        key: (
            MARGIN + (x - left) * CELL_WIDTH + CELL_WIDTH / 2,
            MARGIN + (y - top) * CELL_HEIGHT + CELL_HEIGHT / 2,
        )
        for key, (x, y) in cells.items()
    }
    width = 2 * MARGIN + (max(x for x, _ in cells.values()) - left + 1) * CELL_WIDTH
    height = 2 * MARGIN + (max(y for _, y in cells.values()) - top + 1) * CELL_HEIGHT
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="map" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" aria-label="map of the rooms entered">',
        *_path(steps, centres),
        *(_exits(episode_map, centres) if ways_known else ()),
        *_rooms(episode_map, steps, centres),
        "</svg>",
    ]
    return "\n".join(parts)


def _path(steps: Sequence[Step], centres: Mapping[RoomKey, Point]) -> list[str]:
    """The moves in turn order: walked ones as highlighted lines, one per run of moves; a
    death's jump (the game carries the player away) dashed."""
    drawn: list[str] = []
    run: list[Point] = []
    for step in steps:
        if not step.moved or step.source not in centres or step.target not in centres:
            continue
        start, end = centres[step.source], centres[step.target]
        if step.died:
            drawn.append(_segment("map-death-jump", start, end))
        elif run and run[-1] == start:
            run.append(end)
        else:
            drawn += [_polyline(run)] if run else []
            run = [start, end]
    return drawn + ([_polyline(run)] if run else [])


def _polyline(points: Sequence[Point]) -> str:
    shown = " ".join(f"{x:g},{y:g}" for x, y in points)
    return f'<polyline class="map-path" points="{shown}"/>'


def _segment(kind: str, start: Point, end: Point) -> str:
    (x1, y1), (x2, y2) = start, end
    return f'<line class="{kind}" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}"/>'


def _exits(episode_map: EpisodeMap, centres: Mapping[RoomKey, Point]) -> list[str]:
    """A line per pair of rooms an exit joins; each exit's way written at the room it leaves."""
    lines: dict[frozenset[RoomKey], str] = {}
    labels = []
    for room in episode_map.rooms:
        for way, target in room.exits.items():
            if target not in centres or target == room.key:
                continue
            start, end = centres[room.key], centres[target]
            lines.setdefault(frozenset((room.key, target)), _segment("map-exit", start, end))
            if way:
                labels.append(_exit_label(way, start, end))
    return [*lines.values(), *labels]


def _exit_label(way: str, start: Point, end: Point) -> str:
    """The way, just outside the box of the room it leaves, on the line to the next room."""
    (x1, y1), (x2, y2) = start, end
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy)
    reach = min(
        BOX_WIDTH / 2 / abs(dx) if dx else math.inf, BOX_HEIGHT / 2 / abs(dy) if dy else math.inf
    )
    out = reach * length + 12  # pixels from the centre along the line
    x, y = x1 + dx / length * out, y1 + dy / length * out + 4
    shown = SHORT.get(way, way)
    if len(shown) > EXIT_CHARS:
        shown = shown[: EXIT_CHARS - 1] + "…"
    return (
        f'<text class="map-way" x="{x:.1f}" y="{y:.1f}">{escape(shown)}'
        f"<title>{escape(way)}</title></text>"
    )


def _rooms(
    episode_map: EpisodeMap, steps: Sequence[Step], centres: Mapping[RoomKey, Point]
) -> list[str]:
    entered: dict[RoomKey, list[int]] = {}
    deaths: dict[RoomKey, list[int]] = {}
    for step in steps:
        if step.target is not None and step.target != step.source:
            entered.setdefault(step.target, []).append(step.turn)
        if step.died:
            where = step.source if step.source is not None else step.target
            if where is not None:
                deaths.setdefault(where, []).append(step.turn)
    start = steps[0].source if steps else episode_map.rooms[0].key
    return [
        _room(
            room,
            centres[room.key],
            _marks(room.key, start, episode_map.here),
            _entered(room, entered.get(room.key, [])),
            deaths.get(room.key, []),
            episode_map.describe(room.key),
        )
        for room in episode_map.rooms
        if room.key in centres
    ]


def _marks(key: RoomKey, start: RoomKey | None, here: RoomKey | None) -> str:
    return ", ".join(name for name, at in (("start", start), ("end", here)) if key == at)


def _entered(room: MapRoom, turns: Sequence[int]) -> str:
    """The turns the player came into the room on ("turn 0" for the room it starts in)."""
    shown = ([0] if room.first_turn == 0 else []) + list(turns)
    if not shown:
        return ""
    more = "…" if len(shown) > TURNS_SHOWN else ""
    listed = ", ".join(str(turn) for turn in shown[:TURNS_SHOWN])
    return f"turn{'s' if len(shown) > 1 else ''} {listed}{more}"


def _room(
    room: MapRoom,
    centre: Point,
    marks: str,
    entered: str,
    deaths: Sequence[int],
    described: str,
) -> str:
    x, y = centre
    left, top = x - BOX_WIDTH / 2, y - BOX_HEIGHT / 2
    kinds = " ".join(["map-room", *(f"map-{mark}" for mark in marks.split(", ") if mark)])
    label = room.label if len(room.label) <= LABEL_CHARS else room.label[: LABEL_CHARS - 1] + "…"
    parts = [
        f'<g class="{kinds}"><title>{escape(described)}</title>',
        f'<rect x="{left:g}" y="{top:g}" width="{BOX_WIDTH}" height="{BOX_HEIGHT}" rx="5"/>',
        f'<text class="map-label" x="{x:g}" y="{y - 3:g}">{escape(label)}</text>',
    ]
    if entered:
        parts.append(f'<text class="map-turns" x="{x:g}" y="{y + 13:g}">{entered}</text>')
    if marks:
        parts.append(f'<text class="map-mark" x="{left:g}" y="{top - 4:g}">{marks}</text>')
    if deaths:
        died = ", ".join(str(turn) for turn in deaths)
        parts.append(
            f'<text class="map-died" x="{left + BOX_WIDTH:g}" y="{top - 4:g}">☠ {died}'
            f"<title>died on turn{'s' if len(deaths) > 1 else ''} {died}</title></text>"
        )
    parts.append("</g>")
    return "".join(parts)
