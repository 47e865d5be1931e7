"""`zork-mcp-inspect [inspect eval's options]`: `inspect eval zork_mcp/zork` with those options,
exiting 1 when a task did not succeed. Inspect's own `inspect eval` exits 0 whatever its tasks
did (each task's status is in its log), so a script or CI would take a failed run for a good
one."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, NoReturn

TASK = "zork_mcp/zork"
PROGRAM = "zork-mcp-inspect"
NEEDS_EXTRA = (
    f"{PROGRAM} needs Inspect AI, which the `inspect` extra installs: "
    ".venv/bin/pip install -e '.[inspect]' (in the repository)"
)


@dataclass
class RunsEnded:
    """The logs of every run Inspect ended in this process (headers: status, error, where)."""

    logs: list[Any] = field(default_factory=list)


def run() -> NoReturn:
    """The console script."""
    sys.exit(main(sys.argv[1:]))


def main(argv: Sequence[str]) -> int:
    """Inspect's exit code when it fails (a usage error: 2), else 1 when a task did not end
    in success (each said on stderr with its log), else 0."""
    try:
        ended = watch_runs()
    except ImportError:
        print(NEEDS_EXTRA, file=sys.stderr)
        return 2
    code = inspect_cli(["eval", TASK, *argv])
    if code:
        return code
    failed = [log for log in ended.logs if log.status != "success"]
    for log in failed:
        print(f"{PROGRAM}: {failure(log)}", file=sys.stderr)
    return 1 if failed else 0


def failure(log: Any) -> str:
    """One line: the task, how it ended and why, and its log."""
    message = log.error.message if log.error else ""
    why = f": {message[:300]}{'…' if len(message) > 300 else ''}" if message else ""
    return f"the task {log.eval.task} ended {log.status}{why} (its log: {log.location})"


def watch_runs() -> RunsEnded:
    """Registers an Inspect hook (for this process) that keeps the logs of every run."""
    from inspect_ai.hooks import Hooks, RunEnd, hooks

    ended = RunsEnded()

    class RunsWatched(Hooks):
        async def on_run_end(self, data: RunEnd) -> None:
            ended.logs.extend(data.logs)

    hooks(name=PROGRAM, description="keeps each run's logs for the exit status")(RunsWatched)
    return ended


def inspect_cli(args: list[str]) -> int:
    """Inspect's own command line (its `inspect` console script), run here with `args`."""
    [script] = entry_points(group="console_scripts", name="inspect")
    saved, sys.argv = sys.argv, ["inspect", *args]
    try:
        script.load()()
    except SystemExit as exited:
        return exit_code(exited.code)
    finally:
        sys.argv = saved
    return 0


def exit_code(code: Any) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1
