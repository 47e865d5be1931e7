"""How the HTML report scales (issue 36): a sweep of N episodes of T turns, each with its
log folder (a tool call every 4th turn), reported with `write_html`; then its index opened
in headless Chromium (Debian's chromium and chromedriver, as the tests use).

Prints the time to write the report, its size, and the index's load time in the browser
(navigation start to the load event, over `--loads` loads).

    python -m benchmarks.html_report [--episodes 1000] [--turns 100] [--loads 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.support import parse_arguments, print_table
from zork_mcp.app.sweep.html_report import write_html
from zork_mcp.domain.episode.turn_facts import ToolUse, TurnFacts
from zork_mcp.domain.facts.episode_facts import EpisodeStarted, TurnCompleted
from zork_mcp.domain.sweep.records import EpisodeRecord, play_metrics

ROOMS = ["West of House", "North of House", "Forest Path", "Clearing", "Forest", "Kitchen"]


def episode(index: int, turns: int, logs: Path) -> EpisodeRecord:
    mcp = ("on", "off")[index % 2]
    facts = []
    started = EpisodeStarted(mcp_enabled=mcp == "on", max_turns=turns)
    lines = [{"event_type": "episode_start", "level": "info", **started.fields()}]
    for turn in range(1, turns + 1):
        thinks = mcp == "on" and turn % 4 == 0
        tools = (ToolUse("reasoning.sequentialthinking", 1),) if thinks else ()
        fact = TurnFacts(turn, (turn // 10) * 5, turn, len(tools), room=ROOMS[(turn + index) % 6],
                         valid=turn % 7 != 0, died=turn == 50, prompt_tokens=900,
                         completion_tokens=60, llm_seconds=1.5, tools=tools)  # fmt: skip
        facts.append(fact)
        for use in tools:
            lines.append({"event_type": "mcp_tool_call", "level": "info", "tool_name": use.tool,
                          "arguments": {"thought": "x" * 200, "thoughtNumber": 1}})  # fmt: skip
            lines.append({"event_type": "mcp_tool_result", "level": "info", "tool_name": use.tool,
                          "is_error": False, "result_type": "str", "result_length": 400,
                          "duration_ms": 20.0, "result_preview": "y" * 400})  # fmt: skip
        told = TurnCompleted(fact, "north", "The path leads north. " * 10, "", len(tools) + 1)
        lines.append({"event_type": "turn_complete", "level": "info", **told.fields()})
    folder = logs / f"bench-{index}"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    last = facts[-1]
    return EpisodeRecord(
        "bench", f"{index:016x}", f"local:m mcp={mcp}", "local:m", mcp, 12 + index % 5, index,
        "done", score=last.score, moves=last.moves, turns=turns, end_reason="turn_limit",
        prompt_tokens=900 * turns, completion_tokens=60 * turns, log_dir=str(folder),
        tool_calls=sum(f.tool_calls for f in facts), max_turns=turns, trajectory=tuple(facts),
        **play_metrics(facts).fields(),
    )  # fmt: skip


def load_seconds(index: Path, loads: int) -> list[float]:
    from tests.support.browser import headless_chromium

    seconds = []
    with headless_chromium() as browser:
        for _ in range(loads):
            browser.get(index.as_uri())
            timing = browser.execute_script(
                "const t = performance.getEntriesByType('navigation')[0];"
                "return [t.startTime, t.loadEventEnd];"
            )
            seconds.append((timing[1] - timing[0]) / 1000)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--loads", type=int, default=5, help="times the index is loaded")
    options = parse_arguments(parser, {"episodes": 4, "turns": 10, "loads": 1})
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        records = [episode(i, options.turns, root / "logs") for i in range(options.episodes)]
        started = time.perf_counter()
        index = write_html(records, root / "html", "bench")
        written = time.perf_counter() - started
        size = sum(p.stat().st_size for p in (root / "html").rglob("*") if p.is_file())
        index_size = index.stat().st_size
        loads = load_seconds(index, options.loads)
    print_table(
        ["episodes", "turns", "write s", "report MB", "index KB", "index load s (median, max)"],
        [[str(options.episodes), str(options.turns), f"{written:.1f}", f"{size / 1e6:.1f}",
          f"{index_size / 1e3:.0f}",
          f"{statistics.median(loads):.3f}, {max(loads):.3f}"]],
    )  # fmt: skip


if __name__ == "__main__":
    main()
