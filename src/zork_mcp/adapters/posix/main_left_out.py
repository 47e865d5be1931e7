"""Starting a multiprocessing child without re-running this process's `__main__` in it.

A spawn or forkserver start imports the parent's main module in the child (as
`__mp_main__`) so that whatever was pickled from it can be found there: a main script, or a
`python -m module` main, runs again in every child (a package's `__main__` is skipped). A
child whose target and arguments all live in importable modules needs none of it, and a
script's imports (a benchmark's scipy, a user's own driver) would cost each child their CPU
and memory. The stdlib offers no switch for this, so the preparation it pickles for the
child is swapped for one without the main while a start is pickled: under one lock for the
whole process, since the game's and the sweep's children may start from different threads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import spawn
from typing import Any

_LOCK = threading.RLock()


@contextmanager
def main_left_out() -> Iterator[None]:
    """Children started inside (by spawn or forkserver) do not import `__main__`."""
    with _LOCK:
        whole = spawn.get_preparation_data

        def without_main(name: str) -> dict[str, Any]:
            return {k: v for k, v in whole(name).items() if not k.startswith("init_main")}

        spawn.get_preparation_data = without_main
        try:
            yield
        finally:
            spawn.get_preparation_data = whole
