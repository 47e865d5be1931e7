"""`eval report --html` in a real headless browser (issues 36 and 46): a real sweep (real
Jericho, a scripted LLM over HTTP, an MCP server process per turn) reported as static pages,
read the way a person reads them: the index loads clean, its tables hold the stored numbers,
each metric is explained, CIs over too few episodes say so, the plots keep their shape, the
episodes table sorts and searches, and an episode's page shows its turns, its tool calls with
their labelled results and its map. Screenshots of both pages are saved beside the report."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from selenium.webdriver.support.select import Select

from tests.support.browser import console_errors, headless_chromium
from tests.support.sweeps import peer, sweep_args
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.app.cli import main
from zork_mcp.app.sweep.html_report import MIN_CI_EPISODES
from zork_mcp.app.sweep.report import MEMORY_PLAY, PLAY, cell_stats, ci_text

# One worker runs the module: its tests share one sweep and its report (the module fixture).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("html_report")]


@pytest.fixture(scope="module")
def report(tmp_path_factory, zork_game) -> tuple[Path, list]:
    tmp_path = tmp_path_factory.mktemp("html")
    results = tmp_path / "results.sqlite"
    models = ["--model", "local:p0.9-q0.1", "--model", "local:p0.5-q0.5"]
    spec = [*models, "--episodes", "2", "--max-turns", "8", "--game", str(zork_game)]
    with peer().serve() as url:
        assert main(sweep_args(url, tmp_path, results, "--name", "web", *spec)) == 0
    out = tmp_path / "html"
    assert main(["eval", "report", str(results), "--html", str(out)]) == 0
    return out / "web", SqliteResultStore(results).episodes("web")


def test_the_index_loads_clean_and_its_tables_hold_the_stored_numbers(report):
    folder, records = report
    with headless_chromium() as browser:
        browser.get((folder / "index.html").as_uri())
        assert console_errors(browser) == []
        rows = browser.find_elements("css selector", "#cells tr")[1:]
        named = [row.find_elements("tag name", "td")[0].text.splitlines() for row in rows]
        shown = {name[0]: row for name, row in zip(named, rows, strict=True)}
        for stats in cell_stats(records):
            cells = [td.text for td in shown[stats.cell].find_elements("tag name", "td")]
            assert cells[0].splitlines() == [stats.cell, stats.setup]  # the set-up in words
            mean = ci_text(stats.mean_score).replace(" [", "\n[")  # the CI under the mean
            assert cells[1:4] == [
                str(stats.episodes),
                str(stats.failures),
                f"{mean}\nn = {stats.episodes}, too few",  # 2 episodes: marked, not trusted
            ]
        episodes = browser.find_elements("css selector", "#episodes tr[data-cell]")
        assert len(episodes) == len(records) == 8
        assert {img.get_attribute("alt") for img in browser.find_elements("tag name", "img")} >= {
            "score_over_turns.png", "rooms_over_turns.png", "tool_use.png", "final_scores.png"
        }  # fmt: skip


def test_the_cell_filter_shows_one_cells_episodes(report):
    folder, _ = report
    with headless_chromium() as browser:
        browser.get((folder / "index.html").as_uri())
        chosen = "local:p0.9-q0.1 mcp=on"
        Select(browser.find_element("id", "cell-filter")).select_by_value(chosen)
        visible = [r for r in browser.find_elements("css selector", "#episodes tr[data-cell]")
                   if r.is_displayed()]  # fmt: skip
        assert len(visible) == 2 and all(chosen in row.text for row in visible)
        assert console_errors(browser) == []


def test_an_episode_page_shows_every_turn_and_its_tool_calls(report):
    folder, records = report
    record = next(r for r in records if r.mcp == "on" and r.tool_calls)
    with headless_chromium() as browser:
        browser.get((folder / "index.html").as_uri())
        browser.find_element("css selector", f"a[href='episodes/{record.key}.html']").click()
        turns = browser.find_elements("css selector", ".turn")
        assert len(turns) == record.turns
        assert [t.find_element("css selector", ".action").text for t in turns] == [
            f"> {turn_action}" for turn_action in actions(record)
        ]
        answers = [t.find_element("css selector", "pre.game").text for t in turns]
        assert all(answers) and answers[0].startswith("North of House")  # the game, after "N"
        tools = browser.find_elements("css selector", ".tool")
        assert len(tools) == record.tool_calls and "raw.pid" in tools[0].text
        assert console_errors(browser) == []
        browser.find_element("link text", "sweep web").click()
        assert browser.find_element("tag name", "h1").text == "Sweep web"


def actions(record) -> list[str]:
    from zork_mcp.app import bootstrap

    events = bootstrap.episode_events(Path(record.log_dir))
    return [e["action"] for e in events if e.get("event_type") == "turn_complete"]


def test_every_metric_is_explained_and_a_ci_over_too_few_episodes_draws_no_verdict(report):
    folder, _ = report
    with headless_chromium() as browser:
        browser.get((folder / "index.html").as_uri())
        for table, metrics in (("play", PLAY), ("memory", MEMORY_PLAY)):
            terms = browser.find_elements("css selector", f"#{table}-meanings dt")
            meanings = browser.find_elements("css selector", f"#{table}-meanings dd")
            assert [t.text for t in terms] == [m.label for m in metrics]
            assert all(len(m.text) > 20 for m in meanings)
        explained = browser.find_element("id", "play-meanings").text
        assert "told apart by their Z-machine object" in explained  # the README's words
        assert {t.text for t in browser.find_elements("css selector", "#cells-meanings dt")} >= {
            "episodes", "failed", "mean score", "tools / turn"
        }  # fmt: skip
        rows = browser.find_elements("css selector", "#differences tr")[1:]
        verdicts = {row.find_elements("tag name", "td")[2].text: [] for row in rows}
        for row in rows:
            cells = row.find_elements("tag name", "td")
            verdicts[cells[2].text].append(cells[4].text)
        needed = f"too few for a CI, {MIN_CI_EPISODES} or more needed"
        assert verdicts["final score"] == [f"n = 2: {needed}"] * 2  # not True nor False
        assert all(v.endswith(needed) for found in verdicts.values() for v in found)
        rule = browser.find_element("id", "ci-rule").text
        assert f"fewer than {MIN_CI_EPISODES} episodes" in rule
        assert console_errors(browser) == []


def test_the_plots_keep_their_own_shape(report):
    folder, _ = report
    with headless_chromium() as browser:
        browser.set_window_size(1280, 900)
        browser.get((folder / "index.html").as_uri())
        images = browser.find_elements("css selector", ".plots img")
        assert len(images) == 4
        for image in images:
            width, height = png_size(folder / image.get_attribute("alt"))
            box = image.rect
            assert box["height"] > 0 and abs(box["width"] / box["height"] - width / height) < 0.02


def test_the_episodes_table_sorts_by_a_clicked_column_and_filters_by_a_search(report):
    folder, records = report
    with headless_chromium() as browser:
        browser.get((folder / "index.html").as_uri())
        header = browser.find_element("xpath", "//table[@id='episodes']//th[.='score']")
        header.click()
        assert column(browser, 3) == sorted(column(browser, 3), key=int)
        assert header.get_attribute("aria-sort") == "ascending"
        header.click()
        assert column(browser, 3) == sorted(column(browser, 3), key=int, reverse=True)
        browser.find_element("xpath", "//table[@id='episodes']//th[.='episode']").click()
        keys = [row.split(" · ")[1] for row in column(browser, 0)]
        by_index = sorted(records, key=lambda r: r.index)
        assert [int(row.split(" · ")[0]) for row in column(browser, 0)] == [
            r.index for r in by_index
        ]
        assert sorted(keys) == sorted(r.key for r in records)
        search = browser.find_element("id", "episode-search")
        search.send_keys(records[0].key)
        assert [row.split(" · ")[1] for row in column(browser, 0)] == [records[0].key]
        search.clear()
        search.send_keys("P0.9 off")  # every word, in any case
        shown = column(browser, 1)
        assert shown == ["local:p0.9-q0.1 mcp=off"] * 2
        assert browser.find_element("id", "episode-count").text == "2 of 8 shown"
        assert console_errors(browser) == []


def test_an_episode_page_labels_each_tool_result_and_draws_the_map(report):
    folder, records = report
    record = next(r for r in records if r.mcp == "on" and r.tool_calls)
    with headless_chromium() as browser:
        browser.get((folder / "episodes" / f"{record.key}.html").as_uri())
        tool = browser.find_elements("css selector", ".tool")[0]
        arguments, result = tool.find_elements("tag name", "summary")
        assert arguments.text == "arguments · 2 chars"  # {}
        shown = tool.find_element("css selector", "pre.result").text
        assert result.text == f"result · ok · {len(shown)} chars" and shown.isdigit()  # a pid
        labels = [t.text for t in browser.find_elements("css selector", "svg.map .map-label")]
        rooms = {"West of House"} | {turn.room for turn in record.trajectory}
        assert set(labels) == rooms and len(labels) == len(rooms)
        assert "n" in [t.text for t in browser.find_elements("css selector", "svg.map .map-way")]
        start = browser.find_element("css selector", "svg.map .map-start .map-label")
        assert start.text == "West of House"
        assert browser.find_elements("css selector", "svg.map polyline.map-path")
        assert console_errors(browser) == []


def test_screenshots_of_the_index_and_an_episode_page(report):
    """Saved beside the report for a person to look at (the pages as a browser draws them)."""
    folder, records = report
    record = next(r for r in records if r.mcp == "on" and r.tool_calls)
    shots = folder.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    with headless_chromium() as browser:
        episode = folder / "episodes" / f"{record.key}.html"
        for page, name in ((folder / "index.html", "index.png"), (episode, "episode.png")):
            browser.set_window_size(1280, 900)
            browser.get(page.as_uri())
            height = browser.execute_script("return document.body.scrollHeight")
            browser.set_window_size(1280, min(height + 120, 8000))
            assert browser.save_screenshot(str(shots / name))
            assert console_errors(browser) == []
    assert all(png_size(shots / name)[0] >= 1000 for name in ("index.png", "episode.png"))


def column(browser, at: int) -> list[str]:
    """The visible rows' text in one column of the episodes table, top to bottom."""
    rows = browser.find_elements("css selector", "#episodes tbody tr")
    return [row.find_elements("tag name", "td")[at].text for row in rows if row.is_displayed()]


def png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height
