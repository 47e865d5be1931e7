"""The first thing the forkserver of a process's game processes does: leave its parent's
session, and remove its listener when it exits.

The forkserver's socket lives in its parent's multiprocessing temp folder (`pymp-*`), which
the parent removes only at a normal exit: a parent killed, or leaving by `os._exit` (a sweep
worker told to stop), would leave it behind. The forkserver outlives its parent by a moment
(it exits when the parent's end of its pipe closes) and exits normally, so it removes both.
It takes a session of its own before its heavy imports (`game_preload`, preloaded after
this), so a kill aimed at its parent's process group (`kill -9 -PGID` of a whole sweep)
does not end it while it imports; a loaded machine, whose imports take longest, left the
folder behind when it came later.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from multiprocessing import forkserver, util


def _remove_the_listener() -> None:
    address = forkserver._forkserver._forkserver_address
    if not isinstance(address, str) or util.is_abstract_socket_namespace(address):
        return
    with contextlib.suppress(OSError):
        os.unlink(address)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.dirname(address))  # the parent's pymp-* folder, if nothing else is in it


with contextlib.suppress(OSError):  # not a group leader: it is started as a plain child
    os.setsid()
atexit.register(_remove_the_listener)
