"""The HTML report's pages hold untrusted text: the LLM's commands and reasoning, tool
arguments and results a third-party server sent, the game's answers, model names. Read back
by an HTML parser, as a browser reads them, each is exactly the text given: nothing in it
opens an element, runs a script or ends the page early."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.app.episode_view import EpisodeView, ToolView, TurnView
from zork_mcp.app.sweep.html_report import episode_page
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.sweep.records import EpisodeRecord

# Text as hostile as an LLM or a server can make it: markup, entities, quotes, controls.
MARKUP = ["<", ">", "&", '"', "'", "</pre>", "<script>", "</script>", "<!--", "]]>", "&amp;"]
texts = st.lists(st.sampled_from(MARKUP) | st.text(max_size=8), max_size=60).map("".join)
# An HTML parser turns a \r into \n (and drops NUL): the page shows such text as it can.
shown = texts.map(lambda t: t.replace("\r", "").replace("\x00", ""))


class Collect(HTMLParser):
    """The text of every element with a class, and the tags the page opened."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: dict[str, list[str]] = {}
        self.tags: list[str] = []
        self._open: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag not in ("link", "meta", "img", "br"):
            self._open.append(dict(attrs).get("class"))

    def handle_endtag(self, tag: str) -> None:
        if self._open and tag not in ("link", "meta", "img", "br"):
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1]:
            self.texts.setdefault(self._open[-1], []).append(data)


def page_for(action: str, reasoning: str, answer: str, arguments: str, result: str) -> Collect:
    facts = TurnFacts(1, 0, 1, 1, room="West of House")
    tool = ToolView("s.t", arguments, "ok", result)
    turn = TurnView(facts, None, action, reasoning, answer, [tool])
    record = EpisodeRecord("s", "k", "local:m mcp=on", "local:m", "on", 12, 0, "done")
    parser = Collect()
    parser.feed(episode_page("s", record, EpisodeView(turns=[turn])))
    parser.close()
    return parser


@settings(max_examples=150)
@given(action=shown, reasoning=shown, answer=shown, arguments=shown, result=shown)
def test_every_untrusted_text_reads_back_as_the_same_text(
    action, reasoning, answer, arguments, result
):
    page = page_for(action, reasoning, answer, arguments, result)
    read = {name: "".join(parts) for name, parts in page.texts.items()}
    assert read.get("action", "") == (f"> {action}" if action else "")
    assert read.get("reasoning", "") == reasoning
    assert read.get("game", "") == answer
    assert (read.get("arguments", ""), read.get("result", "")) == (arguments, result)
    assert page.tags.count("script") == 0
    assert page.tags.count("pre") == 1 + sum(bool(text) for text in (reasoning, answer, result))


def test_an_episode_whose_log_is_gone_shows_its_stored_turns(tmp_path):
    from zork_mcp.app.sweep.html_report import _view_of

    turns = (TurnFacts(1, 5, 1, 0, room="A"), TurnFacts(2, 5, 2, 0, room="B", died=True))
    record = EpisodeRecord("s", "k", "c", "m", "on", 12, 0, "done", log_dir=str(tmp_path / "gone"),
                           trajectory=turns)  # fmt: skip
    view = _view_of(record)
    assert [(t.facts, t.score_change, t.room_changed) for t in view.turns] == [
        (turns[0], 5, False),
        (turns[1], 0, True),
    ]
    page = Collect()
    page.feed(episode_page("s", record, view))
    assert page.tags.count("div") >= 2 and "died" in "".join(page.texts.get("bad", []))
