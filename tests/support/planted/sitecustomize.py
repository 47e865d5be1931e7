"""A planted regression, for tests only (tests/benchmarks/test_baseline.py): with
$ZORK_MCP_PLANTED_GAME_MB set and this folder on PYTHONPATH, every game process holds that
many MB more, written so that they count. Python imports `sitecustomize` at start-up in each
process (the sweep's workers, the game's forkserver); the product's code is untouched."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys

TARGET = "zork_mcp.adapters.game.jericho.emulator_main"
MEGABYTES = int(os.environ.get("ZORK_MCP_PLANTED_GAME_MB", "0"))


class _Planter(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
        if name != TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):  # type: ignore[no-untyped-def]
            run(module)
            start = module.Emulator.__init__

            def heavier(emulator, *args, **kwargs):  # type: ignore[no-untyped-def]
                start(emulator, *args, **kwargs)
                emulator.planted = b"\x01" * (MEGABYTES << 20)

            module.Emulator.__init__ = heavier

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if MEGABYTES:
    sys.meta_path.insert(0, _Planter())
