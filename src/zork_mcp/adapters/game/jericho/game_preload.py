"""What the forkserver of a process's game processes imports once, for all of them.

Jericho loads a private copy of its Frotz library for every FrotzEnv (so that several in
one process keep apart). A forked game process holds exactly one FrotzEnv, so it can use
the library loaded here, before the fork: no copy written and loaded per game, and its
code pages shared by every game. Then the preloaded heap is frozen (gc.freeze), so a
game's collections never walk, and never copy, the forkserver's pages.

Its session and its exit are `forkserver_session`'s, preloaded first.
"""

from __future__ import annotations

import gc

from jericho import jericho

from zork_mcp.adapters.game.jericho import (  # noqa: F401 (preloaded)
    emulator_main,
    emulator_process,  # where the child's target is unpickled from
)

_frotz_library = jericho._load_frotz_lib()
jericho._load_frotz_lib = lambda: _frotz_library
gc.collect()
gc.freeze()
