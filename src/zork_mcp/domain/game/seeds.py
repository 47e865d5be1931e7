"""A game's seed: a whole number of at least 1. Jericho 3.3.1 reads 0 as no seed at all for a
story file it does not know by hash (the trilogy's among them) and seeds its generator from
the clock, so seed 0 would play a different game on every run; a negative seed is no more
documented. Each seed is checked where a run is asked for (docs/games.md)."""

from __future__ import annotations

from collections.abc import Iterable

from zork_mcp.domain.errors import ConfigurationError


def checked_seeds(seeds: Iterable[int], source: str) -> tuple[int, ...]:
    """`seeds`, each at least 1; ConfigurationError naming `source` for any other."""
    seeds = tuple(seeds)
    wrong = [seed for seed in seeds if seed < 1]
    if wrong:
        raise ConfigurationError(
            f"{source}: seed {wrong[0]} is not a seed Jericho keeps (it plays seed 0 as a new "
            "random game every run): give whole numbers of at least 1, e.g. 12."
        )
    return seeds
