"""A sweep whose cells differ in history mode, played whole on the in-memory back-end: the
app's episode player on threads, the fake game, a scripted LLM per episode, a real SQLite
store. Each cell's rows carry its mode, the report and the progress name each set-up in
words, and the memory metrics read the stored turns."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from tests.support.fake_play import fake_play
from tests.support.projects import write_project
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.adapters.sweep.threads import ThreadSweepBackend
from zork_mcp.app.container import Container
from zork_mcp.app.sweep.episode import episode_options, episode_setup, play_episode
from zork_mcp.app.sweep.html_report import write_html
from zork_mcp.app.sweep.live import SweepProgress
from zork_mcp.app.sweep.report import cell_stats, render
from zork_mcp.app.sweep.sweep import Sweep
from zork_mcp.builders.providers import parse_model
from zork_mcp.builders.settings import project_settings
from zork_mcp.domain.episode.history import HistoryMode
from zork_mcp.domain.sweep.episodes import EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.metrics import BY_NAME
from zork_mcp.domain.sweep.scheduler import Scheduler

# West of House -> North of House -> back -> North again, then two looks there: one room
# come back to 2 turns after its first visit, and the second look changes nothing.
COMMANDS = ["north", "south", "north", "look", "look"]
WINDOW = "history window: 30 turns within 8000 tokens; no MCP"
STATE = "history state; no MCP"


@pytest.fixture(name="fake_play")
def playing_the_fake_game():
    with fake_play(COMMANDS):
        yield


def test_two_history_modes_are_two_cells_whose_rows_and_report_name_their_set_up(
    tmp_path, fake_play
):
    pyproject = write_project(tmp_path, enabled=False)
    model = ModelSpec(parse_model("local:m"), "http://127.0.0.1:9/v1")
    history = (HistoryMode.WINDOW, HistoryMode.STATE)
    sweep = Sweep("h", (model,), ("off",), (12,), 1, len(COMMANDS), history=history)
    project = project_settings(pyproject)
    tasks = [EpisodeTask(e, tmp_path / "logs", pyproject, project)
             for e in sweep.episodes_to_play()]  # fmt: skip
    assert [episode_options(t).history for t in tasks] == list(history)
    store, out = SqliteResultStore(tmp_path / "r.sqlite"), io.StringIO()
    progress = SweepProgress(Console(file=out, width=300), live=False, clock=lambda: 0.0)
    backend = ThreadSweepBackend(2, player=play_episode)
    state = Scheduler(backend, store, 2, {}, progress).run(tasks)
    assert (state.done, state.failed) == (2, 0)

    records = {r.history: r for r in store.episodes("h")}
    window, stateful = records["window"], records["state"]
    assert (window.cell, stateful.cell) == ("local:m mcp=off history=window",
                                            "local:m mcp=off history=state")  # fmt: skip
    assert (window.setup, stateful.setup) == (WINDOW, STATE)
    assert len({window.key, stateful.key}) == 2
    for record in (window, stateful):
        assert [t.room for t in record.trajectory] == [
            "North of House", "West of House", "North of House", "North of House",
            "North of House",
        ]  # fmt: skip
        assert all(t.location for t in record.trajectory)
        assert [t.repeated for t in record.trajectory] == [False] * 4 + [True]
        assert BY_NAME["rooms_revisited"].of(record) == 1
        assert BY_NAME["return_turns"].of(record) == 2.0
        assert BY_NAME["repeated_rate"].of(record) == 0.2

    assert {s.cell: s.setup for s in cell_stats(list(records.values()))} == {
        window.cell: WINDOW, stateful.cell: STATE,
    }  # fmt: skip
    console = Console(record=True, width=250)
    render(console, list(records.values()), "h")
    text = console.export_text()
    assert WINDOW in text and STATE in text and "memory per cell" in text
    index = write_html(list(records.values()), tmp_path / "html", "h").read_text()
    assert WINDOW in index and STATE in index
    lines = out.getvalue()
    assert f"{window.cell} ({WINDOW}) seed 12" in lines and f"({STATE}) seed 12" in lines


def test_the_set_up_names_an_mcp_config_file_its_servers_and_the_tools_it_offers(tmp_path):
    """As zork-bench varies its map modes: the memory server without its map tools."""
    server = {
        "command": "python",
        "args": ["-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"],
    }
    config = tmp_path / "memory-no-map.json"
    config.write_text(json.dumps({"mcpServers": {
        "memory": {**server, "excludeTools": ["get_map", "find_path"]},
        "notes": {**server, "includeTools": ["add_note", "read_notes"]},
    }}))  # fmt: skip
    pyproject = write_project(tmp_path, enabled=True)
    sweep = Sweep("m", (ModelSpec(parse_model("local:m")),), (str(config), "off"),
                  history=(None, HistoryMode.FULL))  # fmt: skip
    named = {}
    for spec in sweep.episodes_to_play():
        task = EpisodeTask(spec, tmp_path, pyproject, project_settings(pyproject))
        container = Container(options=episode_options(task), project=task.project)
        named[spec.cell.label] = episode_setup(container)
    assert named == {
        f"local:m mcp={config}": "history window: 30 turns within 8000 tokens; MCP "
        "memory-no-map.json: memory (all tools but get_map, find_path) + notes (add_note, "
        "read_notes)",
        f"local:m mcp={config} history=full": "history full: all turns within 8000 tokens; "
        "MCP memory-no-map.json: memory (all tools but get_map, find_path) + notes (add_note, "
        "read_notes)",
        "local:m mcp=off": WINDOW,
        "local:m mcp=off history=full": "history full: all turns within 8000 tokens; no MCP",
    }


def test_an_episode_whose_settings_do_not_resolve_has_no_set_up_rather_than_failing(tmp_path):
    sweep = Sweep("m", (ModelSpec(parse_model("local:m")),), (str(tmp_path / "missing.json"),))
    [spec] = sweep.episodes_to_play()
    pyproject = write_project(tmp_path, enabled=True)
    task = EpisodeTask(spec, tmp_path, pyproject, project_settings(pyproject))
    container = Container(options=episode_options(task), project=task.project)
    assert episode_setup(container) is None
