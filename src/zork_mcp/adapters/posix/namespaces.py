"""What Landlock cannot deny a confined server, denied with namespaces of its own (issue 66).

Landlock has no right for a file's metadata (chmod, chown, utime, extended attributes), and
a process that leaves its session (a double fork and setsid) outlives whatever waits on its
group. So a confined server also runs in user, mount and PID namespaces of its own
(unshare(2), user_namespaces(7), mount_namespaces(7), pid_namespaces(7)):

- **The tree read-only but what it may write.** Its mount tree is its parent's, made
  read-only (mount_setattr(2), MOUNT_ATTR_RDONLY, recursive), and each folder it may write is
  bound over itself writable, with no device node opened and no set-uid bit honoured there
  (MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID). A read-only mount refuses chmod, chown, utime and
  setxattr (EROFS) whoever owns the file; a device node's own writes are not refused (so
  /dev/null works), and Landlock already forbids making one.
- **No capability.** It maps its own uid and gid to themselves (it sees the same ids) and then
  drops every capability, its bounding set too, so not even an exec as root regains one: it
  can neither undo its mounts nor chown what it owns.
- **The first process of its PID namespace.** When it ends, the kernel ends every process in
  the namespace: a daemon it started ends with it. `become_init` forks it there; its parent,
  the process its starter knows (same pid, group, pipes), stays outside, passes signals on
  and exits as it exits; and if that parent is killed, the kernel kills it
  (PR_SET_PDEATHSIG). A namespace's first process ignores a signal it has no handler for
  (pid_namespaces(7)), so the parent, seeing (in /proc/<pid>/status) that the server would
  have died of the signal it passes on, kills it instead, and then dies of that signal itself:
  a SIGTERM ends a server without a handler as promptly as ever.

It must run single-threaded: a forked server before its code runs, or the spawn launcher.
Standard library only (the launcher must start fast).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import struct
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

# include/uapi/linux/sched.h
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000
# include/uapi/asm-generic/unistd.h: one number on every architecture since Linux 5.2
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442
# include/uapi/linux/mount.h, fcntl.h
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC, AT_RECURSIVE, AT_EMPTY_PATH = 1, 0o2000000, 0x8000, 0x1000
MOVE_MOUNT_F_EMPTY_PATH, AT_FDCWD = 0x4, -100
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 0x1, 0x2, 0x4
MS_REC, MS_PRIVATE = 0x4000, 1 << 18
# include/uapi/linux/prctl.h, capability.h
PR_SET_PDEATHSIG, PR_CAPBSET_DROP = 1, 24
CAPABILITY_VERSION_3 = 0x20080522
NOT_MOUNTED = ("/dev/", "/proc/", "/sys/")  # device nodes and kernel files: never bound
RELAYED = (
    signal.SIGTERM,
    signal.SIGINT,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)


class _MountAttr(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("set", "clear", "propagation", "userns")]


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _checked(result: int, call: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{call}: {os.strerror(code)}")
    return result


def unshare(*, sealed: bool, network: bool, user: bool = True) -> None:
    """This process in a user namespace of its own (`user`; False: it is in one already),
    mapping its uid and gid to themselves; `sealed`: with mount and PID namespaces (the next
    child it forks is the PID namespace's first); `network`: with a network namespace
    (`network_namespace`)."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER if user else 0
    if sealed:
        flags |= CLONE_NEWNS | CLONE_NEWPID
    if network:
        flags |= CLONE_NEWNET
    _checked(_libc().unshare(flags), "unshare")
    if user:
        _write("/proc/self/setgroups", "deny")  # before gid_map, as user_namespaces(7) says
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")


def seal_tree(writable: Sequence[str]) -> None:
    """This mount namespace's tree read-only, but for each of `writable` (absolute paths;
    missing ones and those under /dev, /proc and /sys skipped), bound over itself writable,
    no device opened and no set-uid honoured beneath it. OSError if the kernel says no."""
    libc = _libc()
    _checked(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount(MS_PRIVATE)")
    clones = []
    try:
        for path in sorted(set(writable), key=len):
            if path.startswith(NOT_MOUNTED) or not os.path.lexists(path):
                continue
            flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE
            fd = _checked(
                libc.syscall(SYS_OPEN_TREE, AT_FDCWD, os.fsencode(path), flags),
                f"open_tree({path})",
            )
            clones.append((path, fd))
        _set_attributes(AT_FDCWD, b"/", MOUNT_ATTR_RDONLY)
        for path, fd in clones:
            _set_attributes(fd, b"", MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID, AT_EMPTY_PATH)
            _checked(
                libc.syscall(
                    SYS_MOVE_MOUNT, fd, b"", AT_FDCWD, os.fsencode(path), MOVE_MOUNT_F_EMPTY_PATH
                ),
                f"move_mount({path})",
            )
    finally:
        for _, fd in clones:
            os.close(fd)


def _set_attributes(fd: int, path: bytes, attributes: int, flags: int = 0) -> None:
    attr = _MountAttr(attributes, 0, 0, 0)
    call = _libc().syscall(
        SYS_MOUNT_SETATTR, fd, path, flags | AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)
    )
    _checked(call, "mount_setattr")


def drop_capabilities() -> None:
    """Every capability gone: the bounding set (so an exec as root regains none), then the
    permitted, effective and inheritable sets (capabilities(7))."""
    libc = _libc()
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for capability in range(last + 1):
        _checked(libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), "prctl(PR_CAPBSET_DROP)")
    header = struct.pack("Ii", CAPABILITY_VERSION_3, 0)
    data = bytes(24)  # two __user_cap_data_struct, all zero
    _checked(libc.capset(header, data), "capset")


def become_init() -> None:
    """Fork: the child, the first process of the PID namespace `unshare` made, returns (and
    dies with its parent); the parent stays outside and `relay`s it, never returning."""
    alive_read, alive_write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(alive_write)
        _checked(_libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PDEATHSIG)")
        os.set_blocking(alive_read, False)
        try:  # the parent died before PDEATHSIG was set: its end is closed
            parent_gone = os.read(alive_read, 1) == b""
        except BlockingIOError:
            parent_gone = False
        os.close(alive_read)
        if parent_gone:
            os._exit(1)
        return
    os.close(alive_read)
    relay(child, keep=alive_write)


def relay(child: int, keep: int) -> NoReturn:
    """Wait for `child`, passing on the signals a starter sends, then exit as it did (its
    code, or killed by its signal). Holds none of its pipes (their ends close with the
    child's, not this process's) but `keep`, which tells the child it is alive."""
    killed_for: list[int] = []  # the signal a SIGKILL stood in for, if one did
    for sig in RELAYED:
        signal.signal(sig, lambda sig, _frame: _pass_on(child, sig, killed_for))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    os.closerange(3, keep)
    os.closerange(keep + 1, _open_max())
    while True:
        _, status = os.waitpid(child, 0)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            break
    code = os.waitstatus_to_exitcode(status)
    if code == -signal.SIGKILL and killed_for:
        code = -killed_for[0]  # it died of what it was sent, as it would have outside
    if code < 0:  # die of it too, as a shell reports a child's death (128 + its number)
        with contextlib.suppress(OSError, ValueError):  # SIGKILL's cannot be set
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code & 0xFF)


def _pass_on(child: int, sig: int, killed_for: list[int]) -> None:
    """`sig` to `child` if it handles it; else what its default would do (every relayed
    signal's default ends a process): SIGKILL, which a namespace's first process cannot
    ignore; nothing if it ignores the signal."""
    handled, ignored = _dispositions(child)
    bit = 1 << (sig - 1)
    if ignored & bit:
        return
    if not handled & bit:
        killed_for.append(sig)
        sig = signal.SIGKILL
    with contextlib.suppress(ProcessLookupError):
        os.kill(child, sig)


def _dispositions(pid: int) -> tuple[int, int]:
    """The signals `pid` catches and those it ignores (proc(5): SigCgt, SigIgn); a process
    gone, or unreadable, is taken to catch every signal (it is then sent as it is)."""
    masks = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(("SigCgt:", "SigIgn:")):
                    name, value = line.split(":", 1)
                    masks[name] = int(value, 16)
    except (OSError, ValueError):
        return -1, 0
    return masks.get("SigCgt", -1), masks.get("SigIgn", 0)


def _open_max() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (OSError, ValueError):
        return 1 << 16


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


PROBE = "import sys; sys.path.insert(0, {root!r}); from {module} import probe; probe()"


def probe() -> NoReturn:
    """Exit 0 if this process may make its namespaces and seal its tree, else 1."""
    try:
        unshare(sealed=True, network=True)
        seal_tree(())
        drop_capabilities()
    except OSError:
        os._exit(1)
    os._exit(0)


@functools.cache
def namespaces_available() -> bool:
    """Whether this kernel lets this user make its own user, mount, PID and network
    namespaces and seal its tree (not Linux; user namespaces off,
    `kernel.unprivileged_userns_clone=0`, an AppArmor restriction or a kernel before 5.12:
    no). Tried in a child interpreter, once a process: a fork of this one, with its threads,
    could deadlock."""
    if not sys.platform.startswith("linux"):
        return False
    root = str(Path(__file__).resolve().parents[3])
    code = PROBE.format(root=root, module=__name__)
    try:
        command = [sys.executable, "-I", "-S", "-c", code]
        tried = subprocess.run(command, stdin=subprocess.DEVNULL, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return tried.returncode == 0
