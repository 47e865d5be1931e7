"""The one place where a command from an LLM becomes safe to type into the Z-machine.

A model's command is untrusted input, and it is judged as the game will read it. What the
interpreter receives is one line of printable ASCII without backslashes (dumb-frotz reads
those as its own escape commands), no longer than the game's own text buffer, in which no
word, in any position of any clause, is one the game reads as a refused verb: one that
ends the game, touches files, or hands control to the interpreter (`#record`, `#command`,
...). Words are resolved as the game resolves them, through its own dictionary, so
`restarting`, `unscri`, `q` and `quit"` are all refused, and so is `take quit`: a false
positive costs a turn, a false negative costs the game. Since no refused command reaches
the game, `again` and `oops` can only repeat or mend a command it did play.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from zork_mcp.domain.game.story_file import GameLexicon, decode_start

_NOT_PRINTABLE = re.compile(r"[^\x20-\x5b\x5d-\x7e]")  # printable ASCII but the backslash


class Refused(Enum):
    """Why a verb never reaches the game, as the agent will read it."""

    GAME_ENDING = "the episode decides when the game ends"
    FILES = "this game is never saved to or loaded from files, nor transcribed"
    INTERPRETER = "it is the interpreter's debugging command, not the game's (it opens files)"


GAME_ENDING_VERBS = ("quit", "restart")
FILE_VERBS = ("save", "restore", "script", "unscript")
INTERPRETER_PREFIXES = ("#", "$")  # Infocom's debugging verbs: #record, #command, $verify


@dataclass(frozen=True)
class CommandRules:
    """The game's lexicon and the dictionary entries that are refused, with their reasons."""

    lexicon: GameLexicon
    refused: Mapping[bytes, tuple[str, Refused]]  # the verb's name ('' for the word itself)

    @classmethod
    def for_game(cls, lexicon: GameLexicon, *, allow_quit_restart: bool = False) -> CommandRules:
        """Refuse the file verbs, the interpreter's verbs, every synonym of them (a word with
        the same dictionary data), and the game-ending verbs unless they are allowed."""
        named = [(verb, Refused.FILES) for verb in FILE_VERBS]
        if not allow_quit_restart:
            named += [(verb, Refused.GAME_ENDING) for verb in GAME_ENDING_VERBS]
        by_data = {
            lexicon.entries[key]: (verb, reason)
            for verb, reason in named
            if (key := lexicon.entry(verb)) is not None
        }
        refused = {lexicon.key(verb): (verb, reason) for verb, reason in named}
        refused |= {key: by_data[data] for key, data in lexicon.entries.items() if data in by_data}
        refused |= {
            key: ("", Refused.INTERPRETER)
            for key in lexicon.entries
            if decode_start(key) in INTERPRETER_PREFIXES
        }
        return cls(lexicon, refused)

    def refusal(self, command: str) -> str:
        """Why the game must not read `command`, or '' when it may."""
        for word in self.lexicon.words(command):
            hit = self.refused.get(self.lexicon.key(word))
            if hit is not None:
                return _refusal_text(word, *hit)
        return ""


@dataclass(frozen=True)
class CommandVerdict:
    """What reaches the interpreter (None: nothing does) and what the agent is told."""

    command: str | None
    notice: str = ""

    @property
    def refused(self) -> bool:
        return self.command is None


def safe_command(raw: str, rules: CommandRules) -> CommandVerdict:
    """`raw` made safe for the Z-machine, or refused with the reason the agent will read."""
    lines = [line for line in raw.splitlines() if line.strip()]
    printable = _printable(lines[0] if lines else "")
    command = _cap(printable, rules.lexicon.input_limit)
    refusal = rules.refusal(command)
    if refusal:
        return CommandVerdict(None, refusal)
    notes = _changes(raw, lines, printable, command, rules.lexicon.input_limit)
    return CommandVerdict(command, " ".join(notes))


def notice_text(verdict: CommandVerdict, game_text: str) -> str:
    """The game's answer with the notice in front of it, as the agent will read it."""
    if not verdict.notice:
        return game_text
    return f"[{verdict.notice}]\n{game_text}" if game_text else f"[{verdict.notice}]"


def _refusal_text(word: str, verb: str, reason: Refused) -> str:
    verb = verb or word
    reading = "" if word == verb else f" (the game reads '{word}' as '{verb}')"
    return (
        f"The command '{verb}' is not available{reading}: {reason.value}. "
        "Play on with a game command."
    )


def _printable(line: str) -> str:
    decomposed = unicodedata.normalize("NFKD", line)
    unaccented = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NOT_PRINTABLE.sub(" ", unaccented).split())


def _cap(command: str, limit: int) -> str:
    if len(command) <= limit:
        return command
    cut = command[:limit]
    head, space, _ = cut.rpartition(" ")
    return head if space and head else cut


def _changes(raw: str, lines: list[str], printable: str, command: str, limit: int) -> list[str]:
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
            f"Your command was cut to {limit} characters, the game's input limit: {command!r}."
        )
    if not command and raw.strip():
        notes.append("Nothing of your command was left to type.")
    return notes
