"""Fuzzed game commands for the real Jericho adapter, run in a child process.

`python -m tests.support.command_fuzz GAME [EXAMPLES]` plays random command sequences
(any Unicode, control characters, very long lines, meta-commands and their abbreviations,
real moves) and exits non-zero if one crashes, halts, changes the game other than by a
normal move, or writes a file into the working directory. `... GAME halt` checks that an
emulator that halts anyway is never stepped again. Run it from an empty folder.
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zork_mcp.adapters.jericho_game import JerichoGameEnv
from zork_mcp.domain.errors import GameHaltedError

META = ["save", "restore", "script", "unscript", "quit", "q", "restart", "y", "verbose"]
MOVES = ["north", "south", "open mailbox", "take leaflet", "read leaflet", "inventory", "look"]
command = st.one_of(
    st.sampled_from(META + MOVES),
    st.sampled_from(META).map(lambda verb: f"north. {verb}"),
    st.sampled_from(META).map(str.upper),
    st.text(max_size=40),
    st.text(alphabet=st.characters(max_codepoint=0x1F), min_size=1, max_size=8),
    st.text(min_size=190, max_size=2000),
    st.lists(st.sampled_from([*MOVES, "\u00e9", "\u4e2d", "\x00", "\n", "\\"]), max_size=6).map(
        "".join
    ),
)
commands = st.lists(command, min_size=1, max_size=12)


def fuzz_the_adapter(game: Path, examples: int) -> None:
    env = JerichoGameEnv(game, seed=12)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(commands)
    def play(sequence: list[str]) -> None:
        last = env.reset()
        for raw in sequence:
            before = _frotz_state(env)
            observation = env.step(raw)
            assert observation.moves >= last.moves, f"{raw!r} took moves back"
            assert not observation.game_over, f"{raw!r} ended the game"
            if observation.text.startswith("[The command"):
                assert _frotz_state(env) == before, f"refused {raw!r} changed the game"
            last = observation
        assert os.listdir(".") == [], f"files written: {os.listdir('.')}"

    play()
    env.close()


def check_a_halt_is_final(game: Path) -> None:
    env = JerichoGameEnv(game, seed=12)
    env.reset()
    try:
        env._frotz_step("\u00e9\u4e2d\x00")  # the raw bytes that halted it, past the guard
    except GameHaltedError:
        pass
    else:
        raise AssertionError("the NUL command no longer halts the emulator: update this check")
    for attempt in (lambda: env.step("look"), env.save_state):
        try:
            attempt()
        except GameHaltedError:
            continue
        raise AssertionError("a halted emulator was used again")


def _frotz_state(env: JerichoGameEnv) -> bytes:
    return pickle.dumps(env.save_state()[0])  # type: ignore[index]


def main(argv: list[str]) -> None:
    warnings.simplefilter("error")  # Jericho's TruncatedInputActionWarning must never fire
    game = Path(argv[0])
    if argv[1:] == ["halt"]:
        check_a_halt_is_final(game)
    else:
        fuzz_the_adapter(game, int(argv[1]) if len(argv) > 1 else 200)


if __name__ == "__main__":
    main(sys.argv[1:])
