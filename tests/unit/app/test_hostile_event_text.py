"""An episode's events.jsonl holds what an MCP server sent: tool names, results, error
messages. Both of its readers show it inert: the sweep's HTML report as text (no element,
no script, no event handler comes of it) and `zork-mcp show` with no control character
(no escape sequence reaches the terminal)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from zork_mcp.app.show import main
from zork_mcp.app.sweep.html_report import write_html
from zork_mcp.domain.sweep.records import EpisodeRecord

SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
TITLE = "\x1b]0;title\x07"  # sets the terminal's title
CLEAR = "\x1b[2J"  # clears the screen
HOSTILE = f"{SCRIPT}{ATTRIBUTE}{TITLE}{CLEAR}"
NAME = f"evil.{HOSTILE}"  # a tool name as a server gave it


def hostile_episode(folder: Path) -> Path:
    """An episode folder whose events log carries a server's hostile text in a tool's name,
    result and timeout, in an error notice and in the episode's end."""
    turn = {"turn": 1, "episode_id": "e", "iteration": 1}
    events = [
        {"event_type": "episode_start", "message": "Episode e started", "mcp_enabled": True,
         "max_turns": 1, "room": "West of House", "location": 10, "turn": 0},
        {"event_type": "mcp_tool_call", "message": f"Agent calling tool {NAME}",
         "tool_name": NAME, "arguments": {"q": HOSTILE}, **turn},
        {"event_type": "mcp_tool_result", "message": f"Tool result received from {NAME}",
         "tool_name": NAME, "result_type": "str", "result_length": len(HOSTILE),
         "result_preview": HOSTILE, "is_error": False, "duration_ms": 1.0, **turn},
        {"event_type": "mcp_tool_call", "message": "again", "tool_name": NAME,
         "arguments": {}, **turn},
        {"event_type": "mcp_tool_timeout", "message": f"timed out: {HOSTILE}",
         "tool_name": NAME, "timeout_seconds": 1.0, **turn},
        {"event_type": "mcp_tool_error", "level": "error", "message": f"server said {HOSTILE}",
         "tool_name": NAME, **turn},
        {"event_type": "turn_complete", "message": "Agent action: east", "action": "east",
         "reasoning": "", "observation": "You can't go that way.", "iterations": 1,
         "score": 0, "moves": 1, "tool_calls": 2, "room": "West of House", "valid": True,
         "died": False, "prompt_tokens": 20, "completion_tokens": 10, "llm_seconds": 0.0,
         "tool_errors": 1, "tools": {NAME: [2, 1]}, "location": 10, "repeated": False,
         **turn},
        {"event_type": "episode_end", "message": "Episode ended", "turns": 1, "score": 0,
         "moves": 1, "room": "West of House", "tool_calls": 2, "prompt_tokens": 20,
         "completion_tokens": 10, "end_reason": "error", "error": f"crashed: {HOSTILE}",
         "seconds": 0.1, "episode_id": "e"},
    ]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    lines = (json.dumps({"timestamp": 1.0, "level": "info", **e}) for e in events)
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


class Page(HTMLParser):
    """The tags a page opens, their attributes' names, and the text directly inside each
    `<b>`, `<pre>` and `div.bad` (a tool's name, its result, a notice)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: set[str] = set()
        self.texts: list[str] = []
        self._open: list[tuple[str, int | None]] = []  # each open tag, and its text's index

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.update(name for name, _ in attrs)
        kept = tag in ("b", "pre") or (tag == "div" and ("class", "bad") in attrs)
        self._open.append((tag, len(self.texts) if kept else None))
        if kept:
            self.texts.append("")

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1][1] is not None:
            self.texts[self._open[-1][1]] += data


def test_the_html_report_shows_a_servers_text_as_text(tmp_path):
    folder = hostile_episode(tmp_path / "logs" / "e")
    record = EpisodeRecord("s", "e", "local:m mcp=on", "local:m", "on", 12, 0, "done",
                           log_dir=str(folder), tool_calls=2)  # fmt: skip
    write_html([record], tmp_path / "report", "s")
    html = (tmp_path / "report" / "episodes" / "e.html").read_text(encoding="utf-8")

    page = Page()
    page.feed(html)
    page.close()
    assert "script" not in page.tags and "img" not in page.tags
    assert not [name for name in page.attributes if name.startswith("on")]
    assert "<script" not in html and "<img" not in html
    # each reads back as the very text the server sent: the name, the result, the notices
    assert page.texts.count(NAME) == 2
    assert HOSTILE in page.texts
    assert f"! server said {HOSTILE}" in page.texts


def test_show_prints_a_servers_text_with_no_control_character(tmp_path, capsys):
    folder = hostile_episode(tmp_path / "e")

    assert main([str(folder)]) == 0

    out = capsys.readouterr().out
    assert not [c for c in out if ord(c) < 0x20 and c != "\n"], "a control character"
    shown = HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    assert f"    tool evil.{shown} " in out  # the name, its codes written out
    assert f"-> ok ({len(HOSTILE)} chars): {shown.replace('  ', ' ')}" in out  # the result
    assert f"    ! server said {shown}" in out
    assert f"timed out: {shown}" in out
    assert f"    error: crashed: {shown}" in out
