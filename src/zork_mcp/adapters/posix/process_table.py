"""Reading Linux's process table (/proc) for what signals cannot tell: whether a process of a
group still runs, as opposed to having ended as a zombie whose exit status nobody read yet."""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def group_running(group: int) -> bool:
    """Whether a process of process group `group` is running (in any state but zombie)."""
    return any(entry.name.isdigit() and _running_in(entry, group) for entry in PROC.iterdir())


def _running_in(entry: Path, group: int) -> bool:
    try:
        stat = (entry / "stat").read_text()
    except OSError:  # it ended while we read the table
        return False
    state, _parent, process_group = stat[stat.rindex(")") + 2 :].split()[:3]
    return int(process_group) == group and state != "Z"
