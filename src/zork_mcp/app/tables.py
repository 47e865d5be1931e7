"""Tables laid out to a width: a terminal's, or the 80 columns (or $COLUMNS) of a pipe, a
file or `--plain`. A table too wide is split between columns into parts that each fit, and
nothing is cut: a header wraps between words, and a word folds only when it cannot fit."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text


@dataclass
class Grid:
    """A table's words before it is laid out: `leading` columns name each row and are
    repeated in every part when the grid is split to fit the width."""

    title: str
    headers: list[str]
    rows: list[list[str | Text]]
    leading: int = 1
    caption: str | None = None

    def tables(self, width: int) -> list[Table]:
        """One table, or several that each fit `width`, split between columns. Nothing is
        cut: a header wraps between words, a value longer than `SHORT_VALUE` too; a word
        longer than `LONGEST_WORD` folds, but in a leading column (a model's name, a run's
        label) only past half the width."""
        least = [self._least(index, width) for index in range(len(self.headers))]
        lead = list(range(self.leading))
        parts: list[list[int]] = []
        for index in range(self.leading, len(self.headers)):
            if parts and _table_width([least[i] for i in [*parts[-1], index]]) <= width:
                parts[-1].append(index)
            else:
                parts.append([*lead, index])
        tables = [self._table(part, least, width) for part in parts or [lead]]
        if len(tables) > 1:
            for number, table in enumerate(tables, 1):
                table.title = f"{self.title} ({number} of {len(tables)})"
        tables[-1].caption = self.caption
        return tables

    def _texts(self, index: int) -> list[str]:
        return [str(row[index]) for row in self.rows]

    def _least(self, index: int, width: int) -> int:
        """The narrowest the column may be: its longest word, or its whole short values."""
        words = [
            len(w) for text in [self.headers[index], *self._texts(index)] for w in text.split()
        ]
        short = [len(text) for text in self._texts(index) if len(text) <= SHORT_VALUE]
        longest = max(LONGEST_WORD, width // 2) if index < self.leading else LONGEST_WORD
        return min(max([*words, *short], default=1), longest)

    def _natural(self, index: int) -> int:
        lines = [self.headers[index], *self._texts(index)]
        return max(len(line) for text in lines for line in text.splitlines() or [""])

    def _table(self, columns: list[int], least: list[int], width: int) -> Table:
        """Each column as wide as it needs, as far as `width` allows: the room left over the
        least widths goes first to the columns that need the least of it to stop wrapping."""
        widths = {index: least[index] for index in columns}
        room = width - _table_width(list(widths.values()))
        for index in sorted(columns, key=lambda i: self._natural(i) - least[i]):
            grow = min(max(self._natural(index) - widths[index], 0), room)
            widths[index], room = widths[index] + grow, room - grow
        table = Table(title=self.title)
        for index in columns:
            justify = "left" if index < self.leading else "right"
            table.add_column(
                self.headers[index], justify=justify, width=widths[index], overflow="fold"
            )
        for row in self.rows:
            table.add_row(*(row[index] for index in columns))
        return table


SHORT_VALUE = 30  # a value this long or shorter never wraps (a CI: `$0.0123 [$0.0100, $0.0150]`)
LONGEST_WORD = 24  # a longer word folds rather than widen its column (a name: half the width)


def _table_width(widths: list[int]) -> int:
    """A rich table's width: each column, its padding (1 a side) and the borders between."""
    return sum(width + 3 for width in widths) + 1
