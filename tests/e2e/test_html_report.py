"""`eval report --html` in a real headless browser (issue 36): a real sweep (real Jericho, a
scripted LLM over HTTP, an MCP server process per turn) reported as static pages, read the
way a person reads them: the index loads clean, its tables hold the stored numbers, the
cell filter filters, and an episode's page shows its turns and its tool calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.support.select import Select

from tests.support.browser import console_errors, headless_chromium
from tests.support.sweeps import peer, sweep_args
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.app.cli import main
from zork_mcp.app.sweep.report import cell_stats, ci_text

pytestmark = pytest.mark.slow


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
        shown = {row.find_elements("tag name", "td")[0].text: row for row in rows}
        for stats in cell_stats(records):
            cells = [td.text for td in shown[stats.cell].find_elements("tag name", "td")]
            assert cells[1:4] == [
                str(stats.episodes),
                str(stats.failures),
                ci_text(stats.mean_score),
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
