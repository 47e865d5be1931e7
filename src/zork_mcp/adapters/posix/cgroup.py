"""A cgroup (v2) of its own for each confined server process, so that every process it
starts ends with it: one that double-forks and calls `setsid` leaves the server's process
group and session, but never its cgroup, which only a process allowed to write the cgroup
filesystem can leave (Landlock grants no server that). When the server ends, `cgroup.kill`
(Linux 5.14) ends everything still in its group at once.

The group is made beside the agent's own, in the cgroup v2 hierarchy (`/proc/self/cgroup`'s
`0::` line, beneath the mount `/proc/self/mountinfo` names); the server joins it as it
starts, through a descriptor of `cgroup.procs` it is handed, before it confines itself.
Where there is no such hierarchy, or the agent may not make groups in it (a session scope
that is not delegated to its user), `new_group` says None and the run says so."""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from pathlib import Path

PREFIX = "zork-mcp-"
KILL_WAIT_SECONDS = 5.0
STALE_SECONDS = 60.0  # an empty group this old is one a killed agent left (a new one fills at once)


def hierarchy() -> Path | None:
    """The agent's own cgroup v2 folder, or None where there is none."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text()
        groups = Path("/proc/self/cgroup").read_text()
    except OSError:
        return None
    mount = next(
        (line.split(" - ")[0].split()[4] for line in mounts.splitlines()
         if " - cgroup2 " in line),
        None,
    )  # fmt: skip
    own = next((line[3:] for line in groups.splitlines() if line.startswith("0::")), None)
    if mount is None or own is None:
        return None
    folder = Path(mount, own.lstrip("/"))
    return folder if (folder / "cgroup.procs").exists() else None


def new_group() -> Path | None:
    """A new, empty cgroup beside the agent's own, or None where none can be made."""
    parent = hierarchy()
    if parent is None:
        return None
    _remove_stale(parent)
    folder = parent / f"{PREFIX}{secrets.token_hex(6)}"
    try:
        folder.mkdir()
    except OSError:
        return None
    if not (folder / "cgroup.kill").exists():  # a kernel before 5.14: nothing to end it with
        with contextlib.suppress(OSError):
            folder.rmdir()
        return None
    return folder


def _remove_stale(parent: Path) -> None:
    """Our empty groups that a killed agent left (`kill -9` runs no clean-up): a group still
    holding a process refuses to be removed, and a young one is left for its server."""
    with contextlib.suppress(OSError):
        for folder in parent.glob(f"{PREFIX}*"):
            with contextlib.suppress(OSError):
                if time.time() - folder.stat().st_ctime > STALE_SECONDS:
                    folder.rmdir()


def joining(folder: Path) -> int:
    """A descriptor that puts the process writing `0` to it into `folder`'s group."""
    return os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)


def join(fd: int) -> None:
    """This process into the group `fd` (from `joining`) names; the descriptor is closed."""
    try:
        os.write(fd, b"0")
    finally:
        os.close(fd)


def end_group(folder: Path) -> None:
    """Every process in `folder`'s group ended, then the group removed (quietly: a group
    already gone, or one that will not empty in KILL_WAIT_SECONDS, is left as it is)."""
    with contextlib.suppress(OSError):
        (folder / "cgroup.kill").write_text("1")
    deadline = time.monotonic() + KILL_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            folder.rmdir()  # EBUSY while a process is still in it
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def cgroups_available() -> bool:
    """Whether a server's group can be made here (one is made, then removed, to know)."""
    group = new_group()
    if group is None:
        return False
    end_group(group)
    return True
