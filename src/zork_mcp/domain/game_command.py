"""The one place where a command from an LLM becomes safe to type into the Z-machine.

A model's command is untrusted input. What the interpreter receives is one line of printable
ASCII without backslashes, which dumb-frotz reads as its own escape commands (accented letters
lose their accents; other characters become spaces), at most
`MAX_COMMAND_BYTES` long (the interpreter's input buffer), with no meta-command that would
touch files or end the game. Whatever was changed is said back to the agent.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_COMMAND_BYTES = 198  # Jericho's INPUT_BUFFER_SIZE (200 - 2); longer input is cut by it
FILE_VERBS = frozenset({"save", "restore", "script", "unscript"})
GAME_ENDING_VERBS = frozenset({"quit", "q", "restart"})
_CLAUSE_BREAK = re.compile(r"[.,;!?]|\bthen\b", re.IGNORECASE)
_NOT_PRINTABLE = re.compile(r"[^\x20-\x5b\x5d-\x7e]")  # printable ASCII but the backslash


@dataclass(frozen=True)
class CommandVerdict:
    """What reaches the interpreter (None: nothing does) and what the agent is told."""

    command: str | None
    notice: str = ""

    @property
    def refused(self) -> bool:
        return self.command is None


def safe_command(raw: str, *, allow_quit_restart: bool = False) -> CommandVerdict:
    """`raw` made safe for the Z-machine, or refused with the reason the agent will read."""
    lines = [line for line in raw.splitlines() if line.strip()]
    printable = _printable(lines[0] if lines else "")
    command = _cap(printable)
    notes = _changes(raw, lines, printable, command)
    refusal = _refusal(command, allow_quit_restart)
    if refusal:
        return CommandVerdict(None, refusal)
    return CommandVerdict(command, " ".join(notes))


def notice_text(verdict: CommandVerdict, game_text: str) -> str:
    """The game's answer with the notice in front of it, as the agent will read it."""
    if not verdict.notice:
        return game_text
    return f"[{verdict.notice}]\n{game_text}" if game_text else f"[{verdict.notice}]"


def _printable(line: str) -> str:
    decomposed = unicodedata.normalize("NFKD", line)
    unaccented = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NOT_PRINTABLE.sub(" ", unaccented).split())


def _cap(command: str) -> str:
    if len(command) <= MAX_COMMAND_BYTES:
        return command
    cut = command[:MAX_COMMAND_BYTES]
    head, space, _ = cut.rpartition(" ")
    return head if space and head else cut


def _changes(raw: str, lines: list[str], printable: str, command: str) -> list[str]:
    notes = []
    if len(lines) > 1:
        notes.append("Only the first line of your command was used.")
    first = " ".join(lines[0].split()) if lines else ""
    if printable != first:
        notes.append(
            f"Your command was changed to printable ASCII: {printable!r} "
            "(the game reads letters, digits and punctuation other than backslash only)."
        )
    if command != printable:
        notes.append(
            f"Your command was cut to {MAX_COMMAND_BYTES} characters, the game's input limit: "
            f"{command!r}."
        )
    if not command and raw.strip():
        notes.append("Nothing of your command was left to type.")
    return notes


def _refusal(command: str, allow_quit_restart: bool) -> str:
    verbs = {clause.split()[0].lower() for clause in _clauses(command)}
    if verbs & FILE_VERBS:
        verb = sorted(verbs & FILE_VERBS)[0]
        return (
            f"The command '{verb}' is not available: this game is never saved to or loaded "
            "from files, nor transcribed. Play on with a game command."
        )
    if verbs & GAME_ENDING_VERBS and not allow_quit_restart:
        verb = sorted(verbs & GAME_ENDING_VERBS)[0]
        return (
            f"The command '{verb}' is not available: the episode decides when the game ends. "
            "Play on with a game command."
        )
    return ""


def _clauses(command: str) -> list[str]:
    return [clause for clause in _CLAUSE_BREAK.split(command) if clause.strip()]
