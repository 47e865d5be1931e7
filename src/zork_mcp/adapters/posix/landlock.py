"""Landlock: a process restricts itself, and every process it starts after, to the files, TCP
ports and scopes it was given (Linux 5.13+, unprivileged). Three syscalls through ctypes;
every constant and struct is the kernel's `include/uapi/linux/landlock.h`.

Each feature needs an ABI version: file rights 1 (refer 2, truncate 3, device ioctls 5), TCP
ports 4, signal and abstract-socket scoping 6. `restrict_self` enforces what the running
kernel knows and returns what it could not, by name: never a silent no-op.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
from collections.abc import Iterable
from typing import Any

# syscall numbers: the same on every architecture (arch/*/syscall tables, generic since 5.13)
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38  # include/uapi/linux/prctl.h

# landlock.h: flags of landlock_create_ruleset
CREATE_RULESET_VERSION = 1 << 0
# landlock.h: enum landlock_rule_type
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2

# landlock.h: LANDLOCK_ACCESS_FS_*
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
# 1 << 5 to 1 << 12: remove a file, make a char device, folder, file, socket, fifo, block
# device, symlink; handled whole (`_FS_BY_ABI`), granted whole to a writable folder but for
# the two device nodes, which no rule grants: a device made in a folder of its own would
# open what the device files it may not read guard (issue 66: char 1:11, the kernel log)
FS_MAKE_CHAR = 1 << 6
FS_MAKE_BLOCK = 1 << 11
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
# landlock.h: LANDLOCK_ACCESS_NET_* (ABI 4)
NET_ABI, SCOPE_ABI = 4, 6  # the first ABI that filters TCP ports; that scopes
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
# landlock.h: LANDLOCK_SCOPE_* (ABI 6)
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

_FS_BY_ABI = {1: FS_REFER - 1, 2: FS_TRUNCATE - 1, 3: FS_IOCTL_DEV - 1, 4: FS_IOCTL_DEV - 1}
_FS_ALL = (FS_IOCTL_DEV << 1) - 1  # ABI 5 and later
OWN_PROC = "/proc/self"  # opened now: the caller's own /proc/<pid>, not its children's
_READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV


class _RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr; its size tells the kernel which fields we know."""

    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),  # ABI 4
        ("scoped", ctypes.c_uint64),  # ABI 6
    )


class _PathBeneathAttr(ctypes.Structure):
    """struct landlock_path_beneath_attr, __attribute__((packed))."""

    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPortAttr(ctypes.Structure):
    """struct landlock_net_port_attr."""

    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


class LandlockError(OSError):
    """The kernel refused a ruleset it said it supports: the process is not confined."""


_libc: ctypes.CDLL | None = None


def _syscall() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    return _libc


def abi_version() -> int:
    """The Landlock ABI the kernel offers: 0 when it has none (not Linux, too old, or
    Landlock not in the boot's `lsm=` list)."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = _syscall()
    version = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    return max(int(version), 0)


def restrict_self(rules: dict[str, Any], abi: int | None = None) -> int:
    """Confine this process (and what it starts) to `rules` (a `Confinement`'s JSON, read
    here without the domain: the launcher must start fast), as far as ABI `abi` (default:
    the kernel's) allows; returns that ABI, which says what was left unenforced
    (`domain.confinement.unenforced`). LandlockError if a call fails."""
    abi = abi_version() if abi is None else abi
    ruleset = build_ruleset(rules, abi)
    if ruleset is not None:
        enforce(ruleset)
    return abi


def build_ruleset(rules: dict[str, Any], abi: int | None = None) -> int | None:
    """A ruleset's file descriptor holding `rules`, for `enforce` here or in a process it is
    handed to (a forked or spawned server: built in its parent, its start only enforces it);
    None when the kernel has no Landlock.

    `read`: readable (and executable) beneath; `write`: also writable, with files, folders,
    links, pipes and sockets made and removed beneath (never a device node); `listed`:
    names listed only; `removable`: empty folders beneath may be removed (a folder of its
    own, when it ends); `connect_ports`: TCP ports it may connect to (none may be bound);
    `scoped`: no signal and no abstract unix socket out of its domain."""
    abi = abi_version() if abi is None else abi
    if abi < 1:
        return None
    handled_fs = _FS_BY_ABI.get(abi, _FS_ALL)
    attr = _RulesetAttr(handled_fs, NET_BIND_TCP | NET_CONNECT_TCP, 0)
    if rules["scoped"] and abi >= SCOPE_ABI:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    size = 8 if abi < NET_ABI else 16 if abi < SCOPE_ABI else 24
    libc = _syscall()
    ruleset = _checked(libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), size, 0), "create")
    try:
        _add_paths(libc, ruleset, rules["listed"], FS_READ_DIR)
        _add_paths(libc, ruleset, rules["read"], _READ & handled_fs)
        _add_paths(libc, ruleset, rules["write"], handled_fs & ~(FS_MAKE_CHAR | FS_MAKE_BLOCK))
        _add_paths(libc, ruleset, rules.get("removable", ()), FS_REMOVE_DIR)
        if abi >= NET_ABI:
            _add_ports(libc, ruleset, rules["connect_ports"])
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def enforce(ruleset: int) -> None:
    """Restrict this process to `ruleset` (which it closes), with its own /proc entry
    readable: the pid it has now, known only here."""
    libc = _syscall()
    try:
        _add_paths(libc, ruleset, [OWN_PROC], _READ)
        _checked(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _checked(libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0), "restrict_self")
    finally:
        os.close(ruleset)


def _add_paths(libc: ctypes.CDLL, ruleset: int, paths: Iterable[str], access: int) -> None:
    """A rule per path that exists (a missing one is no access to grant)."""
    for path in paths:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            allowed = access
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                allowed &= _FILE_RIGHTS
            rule = _PathBeneathAttr(allowed, fd)
            args = (ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0)
            _checked(libc.syscall(_SYS_ADD_RULE, *args), f"add_rule({path})")
        finally:
            os.close(fd)


def _add_ports(libc: ctypes.CDLL, ruleset: int, ports: Iterable[int]) -> None:
    for port in ports:
        rule = _NetPortAttr(NET_CONNECT_TCP, port)
        args = (ruleset, RULE_NET_PORT, ctypes.byref(rule), 0)
        _checked(libc.syscall(_SYS_ADD_RULE, *args), f"add_rule(port {port})")


def _checked(result: int, call: str) -> int:
    if result < 0:
        code = ctypes.get_errno() or errno.EINVAL
        raise LandlockError(code, f"landlock {call}: {os.strerror(code)}")
    return int(result)
