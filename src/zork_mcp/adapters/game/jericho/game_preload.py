"""What the forkserver of a process's game processes imports once, for all of them.

Jericho loads a private copy of its Frotz library for every FrotzEnv (so that several in
one process keep apart). A forked game process holds exactly one FrotzEnv, so it can use
the library loaded here, before the fork: no copy written and loaded per game, and its
code pages shared by every game. Then the preloaded heap is frozen (gc.freeze), so a
game's collections never walk, and never copy, the forkserver's pages.

The forkserver's socket lives in its parent's multiprocessing temp folder (`pymp-*`), which
the parent removes only at a normal exit: a parent killed, or leaving by `os._exit` (a sweep
worker told to stop), would leave it behind. The forkserver outlives its parent by a moment
(it exits when the parent's end of its pipe closes) and exits normally, so it removes both.
It has a session of its own, so a kill aimed at its parent's process group (`kill -9 -PGID`
of a whole sweep) does not end it before it can.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
from multiprocessing import forkserver, util

from jericho import jericho

from zork_mcp.adapters.game.jericho import (  # noqa: F401 (preloaded)
    emulator_main,
    emulator_process,  # where the child's target is unpickled from
)

_frotz_library = jericho._load_frotz_lib()
jericho._load_frotz_lib = lambda: _frotz_library
gc.collect()
gc.freeze()


def _remove_the_listener() -> None:
    address = forkserver._forkserver._forkserver_address
    if not isinstance(address, str) or util.is_abstract_socket_namespace(address):
        return
    with contextlib.suppress(OSError):
        os.unlink(address)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.dirname(address))  # the parent's pymp-* folder, if nothing else is in it


atexit.register(_remove_the_listener)
with contextlib.suppress(OSError):  # not a group leader: it is started as a plain child
    os.setsid()
