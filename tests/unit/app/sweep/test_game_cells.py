"""A sweep across games (issue 65), played whole on the in-memory back-end: the app's episode
player on threads, the fake game behind each game's profile, a scripted LLM per episode, a
real SQLite store. Each game is a cell of its own whose rows carry the game and its maximum,
and the report (the terminal's and the HTML) groups the cells by game."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from tests.support.fake_play import fake_play
from tests.support.projects import write_project
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.adapters.sweep.threads import ThreadSweepBackend
from zork_mcp.app.sweep.cli import sweep_parser, sweep_spec
from zork_mcp.app.sweep.episode import episode_options, play_episode
from zork_mcp.app.sweep.html_report import write_html
from zork_mcp.app.sweep.live import SweepProgress
from zork_mcp.app.sweep.report import cell_stats, game_stats, render
from zork_mcp.app.sweep.sweep import Sweep, sweep_from_toml
from zork_mcp.builders.providers import parse_model
from zork_mcp.builders.settings import project_settings
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.episodes import EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.scheduler import Scheduler

COMMANDS = ["north", "east", "take egg"]  # the fake game's 10 points, in whatever game
MODEL = ModelSpec(parse_model("local:m"), "http://127.0.0.1:9/v1")
TRILOGY = ("zork1", "zork2", "zork3")


@pytest.fixture(name="fake_play")
def playing_the_fake_game():
    with fake_play(COMMANDS):
        yield


def test_a_sweep_over_the_trilogy_stores_a_cell_per_game_and_its_report_groups_them(
    tmp_path, fake_play
):
    pyproject = write_project(tmp_path, enabled=False)
    sweep = Sweep("g", (MODEL,), ("off",), (12,), 2, len(COMMANDS), games=TRILOGY)
    project = project_settings(pyproject)
    tasks = [EpisodeTask(e, tmp_path / "logs", pyproject, project)
             for e in sweep.episodes_to_play()]  # fmt: skip
    assert {episode_options(t).game for t in tasks} == set(TRILOGY)
    store = SqliteResultStore(tmp_path / "r.sqlite")
    progress = SweepProgress(Console(file=io.StringIO(), width=300), live=False, clock=lambda: 0.0)
    state = Scheduler(ThreadSweepBackend(3, player=play_episode), store, 3, {}, progress).run(tasks)
    assert (state.done, state.failed) == (6, 0)

    records = store.episodes("g")
    by_cell = {r.cell: r for r in records}
    assert set(by_cell) == {f"local:m mcp=off game={game}" for game in TRILOGY}
    assert {(r.cell.rsplit("=", 1)[1], r.game, r.max_score) for r in records} == {
        ("zork1", "zork1", 350), ("zork2", "zork2", 400), ("zork3", "zork3", 7),
    }  # fmt: skip
    assert {r.game: r.normalized_score for r in records} == {
        "zork1": 10 / 350, "zork2": 10 / 400, "zork3": 10 / 7,
    }  # fmt: skip
    assert [s.game for s in cell_stats(records)] == list(TRILOGY)
    assert [(g.name, g.max_score, g.episodes) for g in game_stats(records)] == [
        ("Zork I", 350, 2), ("Zork II", 400, 2), ("Zork III", 7, 2),
    ]  # fmt: skip

    console = Console(record=True, width=250)
    render(console, records, "g")
    text = console.export_text()
    assert "g: games" in text
    for name in ("Zork I", "Zork II", "Zork III"):
        assert f"g, {name}: score per cell" in text and f"g, {name}: play per cell" in text
    assert text.index("g, Zork I: score") < text.index("g, Zork II: score")
    assert "1.429" in text  # Zork III's 10 of 7 points, over its own maximum

    index = write_html(records, tmp_path / "html", "g").read_text()
    assert 'id="games"' in index
    for game, name in zip(TRILOGY, ("Zork I", "Zork II", "Zork III"), strict=True):
        section = index.split(f'<h2 id="game-{game}">{name}</h2>')[1].split('<h2 id="game-')[0]
        assert f'id="cells-{game}"' in section and f'id="play-{game}"' in section
        assert re.findall(r"local:m mcp=off game=(zork\d)", section.split("</table>")[0]) == [game]


def test_a_sweep_of_one_game_plays_it_with_the_labels_and_keys_of_a_sweep_without_games():
    plain = Sweep("s", (MODEL,), ("on", "off"), episodes=2)
    zork2 = Sweep("s", (MODEL,), ("on", "off"), episodes=2, games=("zork2",))
    assert [c.label for c in zork2.cells] == [c.label for c in plain.cells] == [
        "local:m mcp=on", "local:m mcp=off",
    ]  # fmt: skip
    assert [e.key for e in zork2.episodes_to_play()] == [e.key for e in plain.episodes_to_play()]
    first = zork2.episodes_to_play()[0]
    task = EpisodeTask(first, Path("logs"), Path("none.toml"), ProjectSettings(), zork2.game)
    assert episode_options(task).game == "zork2"
    several = Sweep("s", (MODEL,), ("off",), episodes=1, games=("zork1", "zork3"))
    assert [c.label for c in several.cells] == [
        "local:m mcp=off game=zork1", "local:m mcp=off game=zork3",
    ]  # fmt: skip
    assert len({e.key for e in several.episodes_to_play()}) == 2


def test_games_come_from_the_flag_as_a_comma_list_or_from_the_sweep_file(tmp_path):
    args = sweep_parser().parse_args(
        ["--model", "local:m", "--game", "zork1,ZORK2", "--game", "zork2,zork3",
         "--config", str(tmp_path / "none.toml")]
    )  # fmt: skip
    spec, _ = sweep_spec(args)
    assert spec.games == TRILOGY and spec.game is None
    path = tmp_path / "games.toml"
    path.write_text('models = ["local:m"]\ngames = ["zork3", "zork1"]\nmax_score = 9\n')
    assert sweep_from_toml(path.read_text(), str(path))["games"] == ("zork3", "zork1")
    args = sweep_parser().parse_args(
        ["--sweep", str(path), "--game", "zork2", "--config", str(tmp_path / "none.toml")]
    )
    spec, _ = sweep_spec(args)
    assert (spec.games, spec.game, spec.max_score) == (("zork2",), "zork2", 9)


def test_a_game_that_is_none_of_the_trilogy_and_no_file_is_refused_before_any_episode(
    tmp_path, capsys
):
    from zork_mcp.app.cli import main

    code = main(["eval", "--model", "local:m", "--base-url", "http://127.0.0.1:9/v1",
                 "--game", "zork1,zork9", "--results", str(tmp_path / "r.sqlite"),
                 "--config", str(tmp_path / "none.toml")])  # fmt: skip
    assert code == 2
    assert "zork9" in capsys.readouterr().err and not (tmp_path / "r.sqlite").exists()
    with pytest.raises(ConfigurationError, match="at least one game"):
        sweep_spec(sweep_parser().parse_args(["--model", "local:m", "--game", ","]))


def test_the_html_of_one_game_has_no_games_table_and_keeps_its_tables_ids(tmp_path):
    from zork_mcp.domain.sweep.records import EpisodeRecord

    records = [
        EpisodeRecord(
            "s",
            f"{mcp}{i}",
            f"local:m mcp={mcp}",
            "local:m",
            mcp,
            i,
            i,
            "done",
            score=i,
            turns=1,
            game="zork2",
            max_score=400,
        )
        for mcp in ("on", "off")
        for i in range(2)
    ]
    index = write_html(records, tmp_path / "html", "s").read_text()
    assert 'id="games"' not in index and 'id="pooled"' not in index and "game-zork2" not in index
    assert all(f'id="{table}"' in index for table in ("cells", "costs", "differences", "play"))


def test_a_dry_run_over_games_estimates_each_games_cells_apart(tmp_path, capsys):
    from zork_mcp.app.cli import main

    pyproject = write_project(tmp_path, enabled=False)
    code = main(["eval", "--model", "local:m", "--base-url", "http://127.0.0.1:9/v1",
                 "--mcp", "off", "--game", "zork1,zork3", "--max-turns", "5", "--dry-run",
                 "--results", str(tmp_path / "r.sqlite"), "--config", str(pyproject)])  # fmt: skip
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0 and not (tmp_path / "r.sqlite").exists()
    assert "local:m mcp=off game=zork1" in out and "local:m mcp=off game=zork3" in out
