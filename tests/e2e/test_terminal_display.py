"""The game on screen in a real terminal (issue 46): `python -m zork_mcp.app` in a tmux pane,
on the real game, against a scripted model over HTTP and an MCP server whose results hold
terminal escape sequences. The pane shows the game's text, the score changes, the death and
the reincarnation, each tool call, the model's retries while they wait, and an error on a
line of its own; no escape sequence from the server changes the title or clears the screen."""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.llm_peers import HttpFault, peer_for
from tests.support.processes import processes_with_environment
from tests.support.projects import write_project
from tests.support.sweeps import peer as sweep_peer
from tests.support.sweeps import project as sweep_project
from tests.support.sweeps import sweep_args
from tests.support.terminal import tmux_pane
from zork_mcp.adapters.llm.fake import action_reply, tool_calls_reply

pytestmark = pytest.mark.slow

ESCAPE_SERVER = Path(__file__).parents[1] / "support" / "escape_server.py"
TOOLS = ["esc.banner", "esc.broken"]
# From West of House, with the app's default seed: into the house (+10), down the trap door
# into the dark cellar (+25), and one step in the dark: a grue (-10), reincarnated in a forest.
TO_THE_GRUE = [
    "north", "east", "open window", "enter", "west", "move rug", "open trap door", "down",
    "north",
]  # fmt: skip
RAW_TITLE = r"\033]0;CONTROL\007"  # printf's escape: a title the pane does take


def app(url: str, project: Path, game: Path, turns: int) -> list[str]:
    return [
        sys.executable, "-m", "zork_mcp.app", "--provider", "local", "--base-url", f"{url}/v1",
        "--model", "m", "--max-turns", str(turns), "--config", str(project),
        "--log-dir", str(project.parent), "--episode-id", "e", "--game", str(game),
    ]  # fmt: skip


def project_with_escapes(directory: Path, mark: str) -> Path:
    server = {"command": "python", "args": [str(ESCAPE_SERVER)], "env": {"MARK": mark}}
    return write_project(directory, {"esc": server}, enabled=True, background_spare=False)


def test_the_pane_shows_the_game_and_no_escape_from_a_server_reaches_it(tmp_path, zork_game):
    mark = uuid.uuid4().hex
    replies = [
        HttpFault(429, "slow down", {"retry-after": "1"}),
        tool_calls_reply(("esc.banner", {})),
        tool_calls_reply(("esc.broken", {})),
        *(action_reply(command) for command in TO_THE_GRUE),
    ]
    peer = peer_for("openai", replies, TOOLS, api_key=None)
    project = project_with_escapes(tmp_path, mark)
    with peer.serve() as url, tmux_pane({**os.environ, "MARK": mark}) as pane:
        pane.run(["printf", RAW_TITLE], tmp_path)
        pane.wait_for_exit(10)
        assert pane.title() == "CONTROL", "a raw escape sequence does set this pane's title"
        pane.run(app(url, project, zork_game, len(TO_THE_GRUE)), tmp_path)
        code, screen = pane.wait_for_exit(120)
        title = pane.title()
    print(screen)
    assert code == 0 and peer.rejections == []
    lines = [line.rstrip() for line in screen.splitlines()]
    retry = "waiting for the model… (attempt 2 of 4: HTTP 429 rate limited: slow down, retrying"
    assert any(line.startswith(retry) for line in lines), "the retry, while it waited"
    for shown in (
        "> north",
        "You are facing the north side of a white house. There is no door here, and all the",
        "+10 points (10)",
        "+25 points (35)",
        "It is pitch black. You are likely to be eaten by a grue.",
        "    ****  You have died  ****",
        "−10 points (25)",
        "died (death 1): reincarnated in Forest",
    ):
        assert any(line.startswith(shown) for line in lines), shown
    escaped = r"\x1b]0;PWNED\x07\x1b[2J\x1b[H\x1b[31mred[bold]markup[/bold]"
    assert f"tool esc.banner {{}} → {escaped}" in lines
    assert f"tool esc.broken {{}} failed: {escaped}" in lines
    # Neither the title change nor the clear happened: the lines before the tools still show.
    assert title == "CONTROL"
    assert lines.index(next(line for line in lines if line.startswith(retry))) < lines.index(
        f"tool esc.banner {{}} → {escaped}"
    )
    assert processes_with_environment("MARK", mark) == []


def test_an_error_after_the_retries_starts_a_line_of_its_own(tmp_path, zork_game):
    mark = uuid.uuid4().hex
    peer = peer_for(
        "openai", [HttpFault(503, "busy", {"retry-after": "0"})] * 4, TOOLS, api_key=None
    )
    project = project_with_escapes(tmp_path, mark)
    with peer.serve() as url, tmux_pane({**os.environ, "MARK": mark}) as pane:
        pane.run(app(url, project, zork_game, 3), tmp_path)
        code, screen = pane.wait_for_exit(120)
    print(screen)
    lines = [line.rstrip() for line in screen.splitlines()]
    assert code == 2
    for attempt in (2, 3, 4):
        notice = f"waiting for the model… (attempt {attempt} of 4: HTTP 503: busy, retrying in 0 s)"
        assert notice in lines
    (error,) = [line for line in lines if "error:" in line]
    assert error.startswith("error: local answered HTTP 503 after 4 attempts: busy")
    assert processes_with_environment("MARK", mark) == []


def test_the_live_line_says_the_server_starts_and_never_blames_the_model_for_it(
    tmp_path, zork_game
):
    """Issue 55: while `npx` downloaded two servers the line said `waiting for the model… 9 s`
    (the model answered in 10 ms). Here a server that takes 4 s to start."""
    mark = uuid.uuid4().hex
    script = f"runpy.run_path({str(ESCAPE_SERVER)!r}, run_name='__main__')"
    slow_start = f"import runpy, time; time.sleep(4); {script}"
    # unconfined: the sandbox grants a script named in the arguments, not one run by `-c`
    server = {"command": "python", "args": ["-c", slow_start], "sandbox": False}
    project = write_project(tmp_path, {"esc": server}, enabled=True, background_spare=False)
    peer = peer_for("openai", [action_reply("north")], TOOLS, api_key=None)
    screens = []
    with peer.serve() as url, tmux_pane({**os.environ, "MARK": mark}) as pane:
        pane.run(app(url, project, zork_game, 1), tmp_path)
        deadline = time.monotonic() + 60
        while not screens or not re.search(r"^EXIT=\d+", screens[-1], re.M):
            screens.append(pane.screen())
            assert time.monotonic() < deadline, screens[-1]
            time.sleep(0.2)
    lines = [line.rstrip() for screen in screens for line in screen.splitlines()]
    assert "EXIT=0" in lines, screens[-1]
    # (once turn 1 has opened its session, the line names the turn: issue 67)
    starting = r"(turn 1: )?starting MCP server esc… [2-9] s"
    assert any(re.fullmatch(starting, line) for line in lines)
    waited = [line for line in lines if re.match(r"(turn 1: )?waiting for the model… ", line)]
    assert all(re.fullmatch(r"(turn 1: )?waiting for the model… [01] s", w) for w in waited)


def test_after_the_first_turn_the_live_line_says_what_each_turn_waits_for(tmp_path, zork_game):
    """Issue 67: after turn 1 the live line kept the last turn's status while the model was
    waited for (3.6 s a turn with npx servers), with no sign of it. Here a model that takes
    2 s a call: under the last turn's status, the line says which turn waits, and for what."""
    model = sweep_peer()
    model.latency = 2.0
    screens = []
    with model.serve() as url, tmux_pane(dict(os.environ)) as pane:
        command = app(url, sweep_project(tmp_path), zork_game, 3)
        command[command.index("--model") + 1] = "p1-q1"
        pane.run(command, tmp_path)
        deadline = time.monotonic() + 90
        while not screens or not re.search(r"^EXIT=\d+", screens[-1], re.M):
            screens.append(pane.screen())
            assert time.monotonic() < deadline, screens[-1]
            time.sleep(0.2)
    assert "EXIT=0" in screens[-1], screens[-1]
    waits = [
        (lines[index - 1], line)
        for screen in screens
        for lines in [[line.rstrip() for line in screen.splitlines()]]
        for index, line in enumerate(lines)
        if re.fullmatch(r"turn [23]: waiting for the model… [1-9] s", line)
    ]
    assert waits, screens[-1]
    status = re.compile(r"turn [12] \| .* \| tokens \d+ \| <?\$0\.\d{4} \| > ")  # the peer bills
    assert all(status.match(above) for above, _ in waits), waits


def test_a_sweeps_live_panel_says_what_each_running_episode_waits_for(tmp_path, zork_game):
    """Issue 67: a sweep's live line moved only when a whole episode ended. Here two
    episodes at once, of a model that takes 2 s a call: each has a line saying its turn
    and what it waits for."""
    model = sweep_peer()
    model.latency = 2.0
    screens = []
    with model.serve() as url, tmux_pane(dict(os.environ)) as pane:
        command = [
            sys.executable, "-m", "zork_mcp.app", *sweep_args(url, tmp_path, tmp_path / "r.sqlite"),
            "--model", "local:p1-q1", "--mcp", "on", "--episodes", "2", "--max-turns", "3",
            "--game", str(zork_game),
        ]  # fmt: skip
        command.remove("--plain")
        pane.run(command, tmp_path)
        deadline = time.monotonic() + 180
        while not screens or not re.search(r"^EXIT=\d+", screens[-1], re.M):
            screens.append(pane.screen())
            assert time.monotonic() < deadline, screens[-1]
            time.sleep(0.2)
    assert "EXIT=0" in screens[-1], screens[-1]
    waiting = re.compile(r"local:p1-q1 mcp=on seed (1[23]) #[01]: turn ([1-3]): waiting for ")
    seen = {
        found.groups()
        for screen in screens
        for line in screen.splitlines()
        if (found := waiting.match(line))
    }
    assert {seed for seed, _ in seen} == {"12", "13"}, seen  # both episodes, at once
    assert {turn for _, turn in seen} >= {"2", "3"}, seen  # turn by turn
