"""Untrusted commands for the real game: a corpus of the ways a line can reach a verb or the
interpreter behind our back, and Hypothesis mixes of them, with the checks every command
must pass against the real emulator (which runs in its game process, so a crash is seen)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import strategies as st

from zork_mcp.adapters.game.jericho import JerichoGameEnv

CORPUS: dict[str, list[str]] = {
    "six letters": ["restarting", "restar", "scripting", "unscri", "restoring", "RESTORING",
                    "quit", "q", "save", "restore", "script", "unscript", "restart"],
    "quotes": ['quit"', 'wait"restart', '"quit"', 'say "save"', 'n"q'],
    "fillers": ["the quit", "the save", "a restart", "an unscript", "the the q"],
    "and": ["n and quit", "take all and quit", "n then restart", "n. save. s", "n,q"],
    "oops": ["xyzzyq", "oops quit", "oops restar", "take qxit", "oops q"],
    "again": ["north", "quit", "again", "g", "restart", "g"],
    "interpreter": ["#record", "#comm", "#command", "#unrecord", "#random 3", "$verify",
                    "#comm. " + "a" * 33, "#record. " + "b" * 30, "scripting. " + "c" * 30,
                    "#reco foo", "north. #comm"],
    "long": ["take lamp " * 30, "x" * 2000, "n " * 100 + "quit", "a" * 119, "a" * 120],
    "unencodable": ["\ud800quit", "\udfffsave", "open\ud800 mailbox", "\udc80"],
    "lines and escapes": ["north\nquit", "north\rquit", "n\x00quit", "\x1b[2Jquit", "\\quit",
                          "\\R", "\\help", "n\u2028quit", "\x85save"],
}  # fmt: skip

# What the game prints when a forbidden verb reaches it (each seen with the guard bypassed).
FORBIDDEN_ANSWERS = (
    "(Y is affirmative)",  # quit, restart
    "Here begins a transcript",  # script
    "Cannot open file",  # #command
    "Verifying disk",  # $verify
    "Please enter a filename",
)
WORDS = [word for group in CORPUS.values() for word in group] + [
    "open mailbox", "take leaflet", "read leaflet", "inventory", "look", "s", "e", "wait",
]  # fmt: skip
JOINS = [" ", ". ", ", ", " and ", " then ", '"', " the ", "\n"]

mixed = st.builds(
    lambda words, joins: "".join(w + j for w, j in zip(words, joins, strict=False)),
    st.lists(st.sampled_from(WORDS).map(lambda w: w.upper() if len(w) % 3 == 0 else w),
             min_size=1, max_size=4),
    st.lists(st.sampled_from(JOINS), min_size=4, max_size=4),
)  # fmt: skip
command = st.one_of(mixed, st.sampled_from(WORDS), st.text(max_size=40),
                    st.text(min_size=100, max_size=400))  # fmt: skip
commands = st.lists(command, min_size=1, max_size=8)


def play_checked(env: JerichoGameEnv, sequence: list[str]) -> None:
    """Play `sequence` from the start; fail on anything a forbidden verb or a crash does."""
    last = env.reset()
    pid, restarts, folder = env.process_id, env.restarts, private_folder(env)
    for raw in sequence:
        before = env.save_state()
        observation = env.step(raw)
        assert (env.process_id, env.restarts) == (pid, restarts), f"{raw!r}: the emulator died"
        assert not any(answer in observation.text for answer in FORBIDDEN_ANSWERS), (
            f"{raw!r} reached a forbidden verb: {observation.text!r}"
        )
        assert observation.moves >= last.moves, f"{raw!r} took moves back"
        assert not observation.game_over, f"{raw!r} ended the game"
        if observation.text.startswith("[The command"):
            assert env.save_state() == before, f"refused {raw!r} changed the game"
        assert os.listdir(folder) == [], f"{raw!r} wrote {os.listdir(folder)}"
        last = observation


def private_folder(env: JerichoGameEnv) -> Path:
    return env._process.folder  # type: ignore[union-attr]
