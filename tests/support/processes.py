"""Read the process table (/proc) to prove no server process outlived its test."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable
from pathlib import Path


def as_from_a_terminal() -> None:
    """A child's Ctrl-C as a terminal delivers it (Popen's `preexec_fn`): a test run started in
    the background (`cmd &` in a script, as CI may) has SIGINT ignored, a child inherits that
    across exec, Python then installs no KeyboardInterrupt, and the child rightly does not
    stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def processes_in_groups(group_ids: Iterable[int]) -> list[tuple[int, str, str]]:
    """(pid, state, command) of live processes whose process group is one of `group_ids`."""
    wanted = set(group_ids)
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, group = fields[0], int(fields[2])
        if group in wanted and state != "Z":
            found.append((int(entry.name), state, command.strip()))
    return found


def processes_with_environment(name: str, value: str) -> list[int]:
    """Live processes whose environment holds name=value (a marker a test gave them)."""
    marker = f"{name}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in environ and state != "Z":
            found.append(int(entry.name))
    return found


def process_group_members(group_ids: Iterable[int]) -> set[int]:
    return {pid for pid, _, _ in processes_in_groups(group_ids)}


def live_descendants(pid: int) -> list[int]:
    """Live (non-zombie) processes below `pid` in the process tree."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        children = parents.get(frontier.pop(), [])
        found += children
        frontier += children
    return found


def forked_ahead(fork_servers: Iterable[int]) -> set[int]:
    """The child each fork server forked ahead and its own child: the youngest child of each,
    and what is below it. A sealed spare (issue 66) waits in a session of its own, as its
    relay and the server's process to be; a server it handed a request to is always older
    than the spare it forked next."""
    waiting: set[int] = set()
    for server in fork_servers:
        children = [(_started(pid), pid) for pid in _children(server)]
        if children:
            youngest = max(children)[1]
            waiting |= {youngest, *live_descendants(youngest)}
    return waiting


def _children(pid: int) -> list[int]:
    try:
        listed = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(child) for child in listed]


def _started(pid: int) -> int:
    """Its start time, in clock ticks after boot (proc(5): stat's 22nd field); 0 if gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


_before: set[int] = set()


def remember_descendants() -> None:
    """Note this process's live descendants now (a test's start): helpers that outlive tests
    by design, such as multiprocessing's resource tracker, are not that test's leaks."""
    _before.clear()
    _before.update(live_descendants(os.getpid()))


def descendants_before_the_test() -> set[int]:
    return set(_before)


def assert_no_processes_left(server) -> None:
    """Close the server, then check the process table for any of its process groups."""
    server.close()
    leftovers = processes_in_groups(server.spawned_pids)
    assert leftovers == [], f"server processes outlived the test: {leftovers}"
