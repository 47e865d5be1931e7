"""What a number flag takes, for `zork-mcp` and `zork-mcp eval` alike (each imports it here,
not from the other): a refusal says what the flag wants and gives an example."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeVar

N = TypeVar("N", int, float)


def positive(kind: Callable[[str], N], example: str | None = None) -> Callable[[str], N]:
    """A flag's number above 0, a whole one if `kind` is int; refused saying what it takes,
    e.g. `example` (else one that suits the kind)."""
    whole = kind is int
    wanted = f"{'a whole number' if whole else 'a number'} above 0"
    return _number(kind, lambda value: value > 0, wanted, example or ("100" if whole else "2.5"))


def at_least_0(example: str) -> Callable[[str], int]:
    """A flag's whole number, 0 or more."""
    return _number(int, lambda value: value >= 0, "a whole number, 0 or more", example)


def _number(
    kind: Callable[[str], N], fits: Callable[[N], bool], wanted: str, example: str
) -> Callable[[str], N]:
    def parse(text: str) -> N:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value) or not fits(value):
            raise argparse.ArgumentTypeError(f"{text!r}: give {wanted}, e.g. {example}")
        return value

    return parse
