"""The game process imports what its emulator loop needs and no more (issue 56): a game
forked in a sweep keeps ~1 MB less, and its forkserver ~11 MB less, than when the child's
package pulled in the parent's side (game_env, the facts, the LLM messages, pydantic)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.paths import ROOT

NOT_NEEDED = (
    "pydantic",
    "zork_mcp.adapters.game.jericho.game_env",
    "zork_mcp.domain.facts",
    "zork_mcp.domain.llm",
    "zork_mcp.domain.servers.confinement",
    "importlib.metadata",
)


def modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(run.stdout.split())


@pytest.mark.parametrize(
    "statement",
    [
        "import zork_mcp.adapters.game.jericho.game_preload",  # a forked game's forkserver
        "import zork_mcp.adapters.game.jericho.emulator_main",  # a spawned game process
    ],
)
def test_the_game_process_imports_none_of_the_parents_side(statement):
    modules = modules_after(statement)
    assert "jericho" in modules
    assert sorted(name for name in NOT_NEEDED if name in modules) == []


def test_the_package_still_offers_its_names():
    modules = modules_after(
        "from zork_mcp.adapters.game.jericho import JerichoGameEnv, find_game_file"
    )
    assert "zork_mcp.adapters.game.jericho.game_env" in modules
