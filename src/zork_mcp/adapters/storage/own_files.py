"""The agent's own files (its checkpoint, events, journal, logs), made and opened so that no
write follows a link: each is opened with O_NOFOLLOW (and O_NONBLOCK: a pipe is not waited
on) and, once open, must be a regular file of this user with no other name (a hard link it
did not make). A file that is not is refused with `ForeignFileError`, which names it and
says what is there instead: another process changed the episode folder, and the agent
neither writes through it nor reads it back.

A file is replaced by writing a new one beside it (O_EXCL, a name of its own) and renaming
it over the old: a rename replaces a link itself, never what it points to; and a name that
is not the agent's own file (a link, a folder) is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from zork_mcp.domain.errors import ConfigurationError

# What the agent makes is its user's alone, whether appended to or replaced whole: no other
# user reads its episodes (servers run as the agent's user, so they need no more).
FILE_MODE = 0o600
FOLDER_MODE = 0o700

_NO_FOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
# Opening a pipe waits for its other end; with O_NONBLOCK (nothing to a regular file) it
# opens or fails at once, and is refused. These errors say the name is no regular file: a
# link (O_NOFOLLOW), a folder opened to write, a pipe or socket with no one at its other end.
_NO_WAIT = os.O_NONBLOCK
_NOT_A_FILE = (errno.ELOOP, errno.EISDIR, errno.ENXIO)


class ForeignFileError(ConfigurationError):
    """One of the agent's files is a link, a hard link, another user's or not a file."""


def open_appending(path: Path, *, readable: bool = False) -> int:
    """A descriptor appending to `path` (and reading it, if `readable`), made (with its
    folder) when missing."""
    folder(path.parent)
    return _checked(path, (os.O_RDWR if readable else os.O_WRONLY) | os.O_APPEND | os.O_CREAT)


def touch(path: Path) -> None:
    """`path` made empty when missing, left as it is otherwise."""
    os.close(open_appending(path))


def append(path: Path, data: bytes) -> None:
    """`data` appended to `path` in one write."""
    fd = open_appending(path)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def read(path: Path) -> bytes:
    """The bytes of `path`; FileNotFoundError when it is missing."""
    fd = _checked(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as file:
        return file.read()


def read_foreign(path: Path, limit: int) -> bytes:
    """At most the last `limit` bytes of a file another process writes (an MCP server, in
    its own folder), from its first whole line. The name is opened as a path only (O_PATH:
    nothing is read, no device or pipe is opened, no link followed) and judged by what it
    is; only a regular file of this user with one name is then opened to read, through that
    same open file (/proc/self/fd), so a swap in between changes nothing. `ForeignFileError`
    says what else it is; FileNotFoundError when it is missing. Never more than `limit`
    bytes in memory, however large the file."""
    try:
        handle = os.open(path, os.O_PATH | _NO_FOLLOW)
    except OSError as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise ForeignFileError(_unread(path, f"unreadable ({e.strerror})")) from None
    try:
        problem = _problem(os.fstat(handle))
        if problem is not None:
            raise ForeignFileError(_unread(path, problem))
        fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    finally:
        os.close(handle)
    try:
        start = max(0, os.fstat(fd).st_size - limit)
        data = os.pread(fd, limit, start)
    finally:
        os.close(fd)
    return data[data.find(b"\n") + 1 :] if start else data


def open_reading(path: Path) -> int:
    """A descriptor reading `path`; FileNotFoundError when it is missing."""
    return _checked(path, os.O_RDONLY)


def replace(path: Path, data: bytes) -> None:
    """`path` replaced by a file holding `data`, atomically: a reader sees the old or the new."""
    folder(path.parent)
    with contextlib.suppress(FileNotFoundError):
        os.close(_checked(path, os.O_RDONLY))  # refuses a link or a folder in its place
    partial = path.with_name(f".{path.name}.{secrets.token_hex(6)}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW, FILE_MODE)
    try:
        _write_all(fd, data)
        os.close(fd)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def folder(path: Path) -> Path:
    """`path` as a folder of the agent's: made (FOLDER_MODE beneath an existing parent) when
    missing; a link or another user's folder in its place is refused."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=FOLDER_MODE, parents=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise ForeignFileError(_refusal(path, _kind(info), "folder"))
    if info.st_uid != os.getuid():
        found = f"a folder of another user (uid {info.st_uid})"
        raise ForeignFileError(_refusal(path, found, "folder"))
    return path


def _checked(path: Path, flags: int) -> int:
    try:
        fd = os.open(path, flags | _NO_FOLLOW | _NO_WAIT, FILE_MODE)
    except OSError as e:
        if e.errno not in _NOT_A_FILE:
            raise
        try:
            found = _kind(os.lstat(path))
        except OSError:
            found = "not a regular file"  # gone again already
        raise ForeignFileError(_refusal(path, found, "file")) from None
    problem = _problem(os.fstat(fd))
    if problem is not None:
        os.close(fd)
        raise ForeignFileError(_refusal(path, problem, "file"))
    return fd


def _problem(info: os.stat_result) -> str | None:
    """What keeps an open file from being one of the agent's own, or None."""
    if not stat.S_ISREG(info.st_mode):
        return _kind(info)
    if info.st_nlink != 1:
        return f"a file with {info.st_nlink} names (a hard link)"
    if info.st_uid != os.getuid():
        return f"a file of another user (uid {info.st_uid})"
    return None


def _kind(info: os.stat_result) -> str:
    if stat.S_ISDIR(info.st_mode):
        return "a folder"
    if stat.S_ISFIFO(info.st_mode):
        return "a pipe"
    if stat.S_ISREG(info.st_mode):
        return "a file"
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link"
    if stat.S_ISSOCK(info.st_mode):
        return "a socket"
    if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
        return "a device node"
    return "not a regular file"


def _refusal(path: Path, found: str, made: str) -> str:
    """Why one of the agent's own files or folders (`made`: "file", "folder") is refused."""
    return (
        f"{path} is {found}, not the {made} zork-mcp made there: another process changed "
        "this episode's folder, so zork-mcp neither writes through it nor reads it back. Look "
        "at what is there, then remove it (or move the folder aside and start a new episode)."
    )


def _unread(path: Path, found: str) -> str:
    """Why a file a server writes (`read_foreign`) is not read."""
    return (
        f"{path} is {found}: from a server's folder zork-mcp reads only a regular file of its "
        "own user with one name."
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
