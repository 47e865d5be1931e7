"""The HTML report explains its own numbers (issue 46): every metric says what it counts and
from what, a CI over fewer than MIN_CI_EPISODES episodes is marked with its n and draws no
verdict, the plots keep their own size, and an episode whose log is gone still has its map."""

from __future__ import annotations

import io
import re

from markupsafe import escape
from rich.console import Console

from zork_mcp.app.sweep.html_report import PLOTS, _read, explained, write_html
from zork_mcp.app.sweep.report import MIN_CI_EPISODES, difference_rows, render
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.sweep.metrics import METRICS
from zork_mcp.domain.sweep.records import EpisodeRecord, play_metrics

NEEDED = f"too few for a CI, {MIN_CI_EPISODES} or more needed"


def episode(mcp: str, index: int, score: int, rooms: list[str] | None = None) -> EpisodeRecord:
    turns = [
        TurnFacts(t, score * t // 4, t, 0, room=room, location=100 + ord(room[0]))
        for t, room in enumerate(rooms or ["A", "B", "A", "C"], 1)
    ]
    return EpisodeRecord(
        "s", f"{mcp}{index}", f"local:m mcp={mcp}", "local:m", mcp, index, index, "done",
        score=score, moves=len(turns), turns=len(turns), trajectory=tuple(turns),
        log_dir="/nonexistent/gone", **play_metrics(turns).fields(),
    )  # fmt: skip


def sweep(per_cell: int) -> list[EpisodeRecord]:
    on = [episode("on", i, 10 + i % 3) for i in range(per_cell)]
    return on + [episode("off", i, i % 2) for i in range(per_cell)]


def test_every_metric_and_plot_is_explained_in_more_than_its_label():
    assert all(len(explained(metric.name)) > len(metric.label) + 10 for metric in METRICS)
    assert set(PLOTS) == {"score_over_turns.png", "rooms_over_turns.png", "final_scores.png",
                          "tool_use.png"}  # fmt: skip


def test_with_too_few_episodes_the_difference_draws_no_verdict_and_says_how_many_are_needed():
    [final, *_] = difference_rows(sweep(2))
    assert (final.treated, final.control, final.few) == (2, 2, True)
    assert final.verdict == f"n = 2: {NEEDED}"
    uneven = [*sweep(2), episode("off", 7, 0)]
    assert difference_rows(uneven)[0].verdict == f"n = 2 on, 3 off: {NEEDED}"


def test_the_terminal_report_draws_no_verdict_over_too_few_episodes_either():
    out = io.StringIO()
    render(Console(file=out, width=300), sweep(2))
    shown = out.getvalue()
    assert "│ n = 2: too few │" in shown and " True " not in shown and " False " not in shown
    assert f"too few: a side has under {MIN_CI_EPISODES} episodes" in shown  # the rule, once


def test_with_enough_episodes_the_difference_says_whether_its_ci_excludes_zero():
    [final, *_] = difference_rows(sweep(MIN_CI_EPISODES))
    assert not final.few and final.verdict == "True"  # on scores 10-12, off 0-1


def test_the_index_marks_each_ci_over_too_few_episodes_with_its_n(tmp_path):
    few = write_html(sweep(2), tmp_path / "few", "s").read_text()
    assert f"n = 2: {NEEDED}" in few and few.count("n = 2, too few") >= len(METRICS)
    assert f"<dd>{escape(explained('rooms'))}" in few
    enough = write_html(sweep(MIN_CI_EPISODES), tmp_path / "enough", "s").read_text()
    assert "too few" not in enough.split('id="ci-rule"')[1]
    assert '<td class="text">True</td>' in enough


def test_the_plots_carry_their_own_size_and_no_forced_height(tmp_path):
    index = write_html(sweep(2), tmp_path, "s").read_text()
    sizes = re.findall(r'<img src="tool_use.png" alt="tool_use.png" width="(\d+)" height="(\d+)"',
                       index)  # fmt: skip
    assert sizes and int(sizes[0][0]) > int(sizes[0][1])  # as matplotlib drew it: wide
    assert "height: auto" in index


def test_an_episode_whose_log_is_gone_has_its_map_from_the_stored_turns():
    view, drawn = _read(episode("on", 0, 5, ["Cellar", "Troll Room", "Cellar", "Gallery"]))
    assert len(view.turns) == 4
    labels = re.findall(r'class="map-label"[^>]*>([^<]*)<', drawn)
    assert labels == ["Cellar", "Troll Room", "Gallery"]
    assert "map-path" in drawn and "map-way" not in drawn and "map-exit" not in drawn


def test_the_default_sweep_is_titled_sweep_once_and_a_named_one_with_its_name(tmp_path):
    """Issue 55: the default sweep (named `sweep`) read "Sweep sweep"."""
    index = write_html(sweep(2), tmp_path / "default", "sweep")
    pages = [index, *sorted((index.parent / "episodes").glob("*.html"))]
    assert "<h1>Sweep</h1>" in index.read_text()
    assert not any("sweep sweep" in page.read_text().lower() for page in pages)
    named = write_html(sweep(2), tmp_path / "named", "web")
    assert "<h1>Sweep web</h1>" in named.read_text()
    assert ">sweep web</a>" in next((named.parent / "episodes").glob("*.html")).read_text()
