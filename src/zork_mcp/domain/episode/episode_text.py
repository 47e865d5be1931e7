"""An episode as a person reads it, line by line: the game's answer to a turn's command, a
death called out, the state after it (score and its change, moves, room), a tool's result
cut to a preview that states its whole size, the mark where a resumed episode goes on.
`zork-mcp show` and episode.log both write these lines, with every text in them (the
LLM's, the game's, a server's) made inert."""

from __future__ import annotations

from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.llm.budget import dollars
from zork_mcp.domain.llm.messages import Usage
from zork_mcp.domain.text.inert import inert

ANSWER_LINES = 40  # of the game's answer, shown whole up to this; a longer one is folded
ANSWER_CHARS = 3000
PREVIEW_CHARS = 300  # of a tool's result or the agent's reasoning, on one line
QUOTE = "| "  # before each line of the game's answer
DIED = "** died **"
NO_PRICE = "no price was reported"  # a call whose LLM (a test's fake) priced nothing


def answer_lines(text: str) -> list[str]:
    """The game's answer, each line quoted; a very long one folded, saying how much is left."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    if not any(lines):
        return [f"{QUOTE}(no answer in the log)"]
    shown, chars = [], 0
    for line in lines[:ANSWER_LINES]:
        if chars + len(line) > ANSWER_CHARS:
            shown.append(line[: max(0, ANSWER_CHARS - chars)])
            break
        shown.append(line)
        chars += len(line) + 1
    quoted = [inert(QUOTE + line).rstrip() for line in shown]
    left = len("\n".join(lines)) - len("\n".join(shown))
    if left > 0:
        quoted.append(f"{QUOTE}[... {left:,} more characters of the answer]")
    return quoted


def state_line(facts: TurnFacts, score_before: int | None) -> str:
    """The state after a turn: `score 25 (-10), moves 14, now in Forest`; the change only if
    the score before is known."""
    change = facts.score - score_before if score_before is not None else 0
    score = f"score {facts.score}" + (f" ({change:+d})" if change else "")
    where = f"now in {one_line(facts.room)}" if facts.room.strip() else "room unknown"
    cost = f", {dollars(facts.cost_usd)}" if facts.cost_usd is not None else ""
    return f"{score}, moves {facts.moves}, {where}{cost}"


def cost_line(usage: Usage) -> str:
    """What an episode's LLM calls cost, part by part: `cost $0.0421: input $0.0300, cached
    input $0.0010, cache writes $0.0000, output $0.0111`, or `cost: unpriced (why)`."""
    unpriced = usage.cost_usd is None and unpriced_why(usage) is not None
    return f"cost{':' if unpriced else ''} {cost_words(usage)}"


def cost_words(usage: Usage) -> str:
    """The cost of `cost_line`, without its name: `$0.0421: input $0.0300, ...`, `unpriced
    (why)`, or `$0.0000 (no tokens used)` where no call used any (a budget stopped it first)."""
    why = unpriced_why(usage)
    if usage.cost_usd is None:
        return f"unpriced ({one_line(why)})" if why else f"{dollars(0.0)} (no tokens used)"
    head = dollars(usage.cost_usd)
    if usage.unpriced:  # some calls priced, others not
        head += f" for the priced calls (others unpriced: {one_line(usage.unpriced)})"
    parts = usage.cost_parts
    if parts is None:
        return f"{head} (as the provider reported it)"
    return (
        f"{head}: input {dollars(parts.input)}, cached input {dollars(parts.cached_input)}, "
        f"cache writes {dollars(parts.cache_write)}, output {dollars(parts.output)}"
    )


def cost_short(usage: Usage) -> str:
    """The cost in a status line: `$0.0421`, `unpriced` (`unpriced_why` says why), or
    `$0.0421 (some unpriced)`."""
    if usage.cost_usd is None:
        return "unpriced" if unpriced_why(usage) else dollars(0.0)
    return dollars(usage.cost_usd) + (" (some unpriced)" if usage.unpriced else "")


def unpriced_why(usage: Usage) -> str | None:
    """Why some (or all) of the calls have no cost; None when each has one, or none was
    made."""
    if usage.unpriced:
        return usage.unpriced
    return NO_PRICE if usage.cost_usd is None and usage.total_tokens else None


def outcome_lines(facts: TurnFacts, answer: str, score_before: int | None) -> list[str]:
    """What the game answered a turn's command, its death if it died, and the state after."""
    lines = answer_lines(answer)
    if facts.died:
        lines.append(DIED)
    return [*lines, state_line(facts, score_before)]


def result_line(status: str, size: int | None, preview: str) -> str:
    """A tool's result on one line: `-> ok (1,234 chars): {"thought": ...}`."""
    stated = f" ({size:,} chars)" if size is not None else ""
    shown = one_line(preview)
    return f"-> {one_line(status)}{stated}" + (f": {shown}" if shown else "")


def result_size(failed: bool, length: object, preview: str) -> int | None:
    """A tool result's whole size, from its event: the length it states, or for an error its
    message's own (the event measures the content, which an error seldom has)."""
    if failed:
        return len(preview)
    return length if isinstance(length, int) else None


def resumed_line(after_turn: int, max_turns: int | None = None) -> str:
    """The mark where a resumed (or a sweep's extended) episode goes on."""
    extended = f", now to {max_turns} turns" if max_turns is not None else ""
    return f"— resumed after turn {after_turn}{extended} —"


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    """`text` on one line, whitespace squashed, cut to `limit` with `...`, inert."""
    text = " ".join(text.split())
    return inert(text if len(text) <= limit else text[: limit - 3] + "...")
