"""The command rule refuses a word exactly when the game would read it as a refused verb,
whatever characters the word is built from, in a story file of any version."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from tests.support.story_files import (
    CHARACTER_CLASSES,
    Word,
    as_read,
    dictionary_zchars,
    pack,
    story,
)
from zork_mcp.domain.game.game_command import CommandRules, Refused, safe_command
from zork_mcp.domain.game.story_file import read_lexicon

SEPARATORS = '.,"'
NAMED = {"save": Refused.FILES, "restore": Refused.FILES, "script": Refused.FILES,
         "unscript": Refused.FILES, "quit": Refused.GAME_ENDING,
         "restart": Refused.GAME_ENDING}  # fmt: skip


WORD_CHARACTERS = {  # a word holds neither a space nor a separator
    name: [char for char in chars if char != " " and char not in SEPARATORS]
    for name, chars in CHARACTER_CLASSES.items()
}


def _characters(*names: str) -> st.SearchStrategy[str]:
    return st.sampled_from(names).flatmap(lambda name: st.sampled_from(WORD_CHARACTERS[name]))


compiled = _characters("A0", "A2", "escape")  # a dictionary holds no upper case, S 3.7
typed = _characters(*CHARACTER_CLASSES)


def _text(characters: st.SearchStrategy[str], *, min_size: int = 1) -> st.SearchStrategy[str]:
    return st.lists(characters, min_size=min_size, max_size=10).map("".join)


@dataclass(frozen=True)
class Game:
    version: int
    allow_quit_restart: bool
    words: list[Word]
    refused: dict[bytes, set[Refused]]  # the game's reading of a word -> why it is refused

    def reads(self, word: str) -> bytes:
        return pack(dictionary_zchars("".join(as_read(char) for char in word), self.version))


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A dictionary of some refused verbs, synonyms of them (their data), `#` and `$` words
    and plain ones, all built from characters of every class; quit and restart allowed or
    not."""
    version = draw(st.sampled_from([3, 4, 5, 8]))
    allowed = draw(st.booleans())
    present = draw(st.lists(st.sampled_from(sorted(NAMED)), unique=True))
    data = {verb: bytes([n, 0, 0]) for n, verb in enumerate(sorted(NAMED), 1)}
    synonyms = draw(st.lists(st.tuples(_text(compiled), st.sampled_from(present)), max_size=3)
                    if present else st.just([]))  # fmt: skip
    debugging = draw(st.lists(st.tuples(st.sampled_from("#$"), _text(compiled, min_size=0))))
    plain = draw(st.lists(_text(compiled), max_size=6))
    words = [Word(verb, data[verb]) for verb in present]
    words += [Word(text, data[verb]) for text, verb in synonyms]
    words += [
        Word(mark + text, bytes([0x80 + n, 0, 0])) for n, (mark, text) in enumerate(debugging)
    ]
    words += [Word(text, bytes([0xC0 + n, 0, 0])) for n, text in enumerate(plain)]
    game = Game(version, allowed, [], {})
    entries: dict[bytes, Word] = {}
    for word in words:
        entries.setdefault(game.reads(str(word.text)), word)  # S 13.5: one entry per text
    refusing = {verb: reason for verb, reason in NAMED.items()
                if not (allowed and reason is Refused.GAME_ENDING)}  # fmt: skip
    refused: dict[bytes, set[Refused]] = {game.reads(verb): {r} for verb, r in refusing.items()}
    for key, word in entries.items():
        reasons = {NAMED[v] for v, d in data.items() if d == word.data and v in refusing}
        reasons |= {Refused.INTERPRETER} if str(word.text)[0] in "#$" else set()
        if reasons:
            refused.setdefault(key, set()).update(reasons)
    return Game(version, allowed, list(entries.values()), refused)


@st.composite
def commands(draw: st.DrawFn, game: Game) -> list[str]:
    """Words of the game typed in any case with any characters past them, or any words."""
    known = [str(word.text) for word in game.words] + sorted(NAMED)
    typed_word = st.builds(
        lambda text, upper, tail: "".join(
            char.upper() if flip else char for char, flip in zip(text, upper, strict=False)
        ) + tail,
        st.sampled_from(known),
        st.lists(st.booleans(), min_size=12, max_size=12),
        _text(typed, min_size=0),
    )  # fmt: skip
    return draw(st.lists(typed_word | _text(typed), min_size=1, max_size=4))


@given(st.data())
def test_the_refusal_rule_holds_for_words_built_from_every_character_class(data):
    """For any story of version 3, 4, 5 or 8 whose dictionary holds refused verbs, their
    synonyms, `#` and `$` words and other words built from A0 letters, A2 punctuation and
    ten-bit escapes, and any command made of its words (typed in any case, with any
    characters past them, upper case and beyond ZSCII included) and of other words: the
    command is refused exactly when one of its words, read as the game reads it (S 3.7, at
    the version's resolution), is a refused verb, one of its synonyms, or a dictionary word
    starting with `#` or `$`; and the reason given is one that word has."""
    game, joins = data.draw(games()), data.draw(st.lists(st.sampled_from(' .,"')))
    words = data.draw(commands(game))
    line = "".join(word + (joins[n] if n < len(joins) else " ") for n, word in enumerate(words))
    lexicon = read_lexicon(story(game.version, game.words, separators=SEPARATORS, letters=198))
    rules = CommandRules.for_game(lexicon, allow_quit_restart=game.allow_quit_restart)
    hits = [game.refused[game.reads(word)] for word in words if game.reads(word) in game.refused]
    refusal = rules.refusal(line)
    assert bool(refusal) == bool(hits), (line, hits, refusal)
    if hits:
        assert any(reason.value in refusal for reason in hits[0])
    if line.isascii() and line.isprintable() and "\\" not in line and len(line.strip()) <= 198:
        assert safe_command(line, rules).refused == bool(hits)
