"""A sweep over the local provider peer and a raw MCP server, for the sweep's end-to-end tests."""

import sqlite3
import subprocess
import time
from dataclasses import replace
from pathlib import Path

from tests.support.eval_peers import WalkthroughPeer
from tests.support.paths import ROOT
from tests.support.processes import live_descendants
from tests.support.projects import write_project
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.domain.episode.turn_facts import TurnFacts

RAW_SERVER = ROOT / "tests" / "support" / "raw_mcp_server.py"


def project(tmp_path: Path) -> Path:
    server = {"command": "python", "args": [str(RAW_SERVER)], "env": {"RAW_MCP_TOOLS": "[]"}}
    return write_project(tmp_path, {"raw": server}, enabled=True)


def peer() -> WalkthroughPeer:
    return WalkthroughPeer(canonical_tools=("raw.environ", "raw.pid"), tool="raw.pid",
                           tool_arguments={})  # fmt: skip


def sweep_args(
    url: str, tmp_path: Path, results: Path, *extra: str, workers: int | None = 1
) -> list[str]:
    """One worker process unless a test asks for more (or, None, for the default: the
    cores, or a Ray back-end's actors): a worker's start is ~1.3 s of CPU for its imports,
    and most sweeps here test what is stored, not how the episodes are spread."""
    return [
        "eval", "--base-url", f"{url}/v1", "--config", str(project(tmp_path)),
        "--results", str(results), "--parallel", "2", "--plain",
        *(["--workers", str(workers)] if workers else []), *extra,
    ]  # fmt: skip


def stored(results: Path) -> dict[str, tuple]:
    deterministic = ("cell", "seed", "score", "moves", "turns", "end_reason", "prompt_tokens",
                     "completion_tokens", "cost_usd", "tool_calls", "error")  # fmt: skip
    return {
        r.key: (*(getattr(r, f) for f in deterministic), untimed(r.trajectory))
        for r in SqliteResultStore(results).episodes("resume")
    }


def wait_for_rows(
    results: Path, process: subprocess.Popen, timeout: float = 120, at_least: int = 2
) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if results.is_file():
            with sqlite3.connect(results) as db:
                if db.execute("SELECT name FROM sqlite_master WHERE name = 'episodes'").fetchone():
                    count = db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
                    if count >= at_least:
                        return count
        time.sleep(0.02)
    raise AssertionError(f"no episode stored within {timeout}s (exit {process.poll()})")


def untimed(turns: tuple[TurnFacts, ...]) -> list[TurnFacts]:
    return [replace(turn, llm_seconds=0.0) for turn in turns]


def worker_pids(sweep: subprocess.Popen) -> list[int]:
    """The sweep's worker processes (spawned: `spawn_main` in their command line)."""
    return [pid for pid in live_descendants(sweep.pid) if b"spawn_main" in _command_line(pid)]


def importing(sweep: subprocess.Popen) -> bool:
    """Whether the sweep process is loading the app: pydantic's core is mapped (the app's
    settings import it), and no worker has been started."""
    try:
        maps = Path(f"/proc/{sweep.pid}/maps").read_text()
    except OSError:
        return False
    return "pydantic_core" in maps and not worker_pids(sweep)


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
