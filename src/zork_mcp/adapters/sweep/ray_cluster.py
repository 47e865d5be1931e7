"""The Ray SweepBackend: episodes on an existing cluster (`--address`) or a local Ray instance.

Each worker is an actor that plays many episodes at once, one per thread, exactly as a
local worker process does (one MCP fork server, forked game processes). Nodes need not
share a filesystem with the driver: an actor plays in a folder of its own node
($ZORK_MCP_WORKER_LOG_DIR, else a temporary folder), and an episode's whole log folder
(events, log, MCP stderr, checkpoint) comes back with its result, finished or
interrupted, to be written under the driver's --log-dir; an episode resumed from a
checkpoint takes that folder with it. An episode still running when the driver dies has
left its logs on its node only, and plays again from its start on resume.

Workers need zork_mcp installed and the game file at the same path, and the provider's
key in their own environment: keys are never put into Ray's runtime environment, which
its dashboard shows. The app gives the back-end its EpisodePlayer, which each actor is
created with (a module-level function, sent by name): the adapter does not import the app.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import logging
import os
import shutil
import stat
import tarfile
import tempfile
import threading
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.sweep.controls import EpisodeInterrupted, RunningEpisodes, begun
from zork_mcp.domain.sweep.episodes import EpisodeTask
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.ports.sweep_backend import EpisodePlayer

log = logging.getLogger(__name__)

LOG_DIR_VARIABLE = "ZORK_MCP_WORKER_LOG_DIR"
# An actor whose raylet dies (the driver killed) SIGKILLs its direct children before it
# exits (Ray's kill_child_processes_on_worker_exit, default true): a game's forkserver, so
# killed, cannot remove its socket folder. Ours end by themselves when the actor's end of
# their pipe closes, and clean up as they go.
LOCAL_SYSTEM_CONFIG = {"kill_child_processes_on_worker_exit": False}
ACTOR_EXIT_SECONDS = 30.0  # an actor ends its running episodes first


@dataclass(frozen=True)
class Played:
    """What an actor sends back: the record (None if interrupted) and the log folder."""

    record: EpisodeRecord | None
    logs: bytes


class EpisodeActor:
    """One Ray worker: plays up to its concurrency in threads, in its node's own folder."""

    def __init__(self, player: EpisodePlayer) -> None:
        configured = os.environ.get(LOG_DIR_VARIABLE)
        self._root = Path(configured or tempfile.mkdtemp(prefix="zork_mcp_ray_"))
        if not configured:  # a folder of its own goes with it (an actor exits as a process)
            atexit.register(shutil.rmtree, self._root, ignore_errors=True)
        self._running = RunningEpisodes()
        self._player = player

    def play(self, task: EpisodeTask, logs: bytes | None) -> Played:
        here = replace(task, log_root=self._root)
        folder = self._root / task.spec.episode_id
        shutil.rmtree(folder, ignore_errors=True)
        if logs is not None:
            unpack(logs, folder)
        controls = self._running.add(task.spec.key)
        try:
            record: EpisodeRecord | None = controls.settle(self._player(here, controls))
        except EpisodeInterrupted:
            record = None
        finally:
            self._running.done(task.spec.key)
        try:
            return Played(record, pack(folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def interrupt(self) -> None:
        self._running.interrupt()


class RaySweepBackend:
    def __init__(
        self,
        parallel: int,
        address: str | None = None,
        workers: int | None = None,
        *,
        player: EpisodePlayer,
    ) -> None:
        try:
            import ray
        except ImportError as e:
            raise ConfigurationError(
                "--backend ray needs Ray: `pip install 'zork-mcp[ray]'`, or drop --backend ray "
                "to use the local worker processes."
            ) from e
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            local: dict[str, Any] = (
                {}
                if address
                else {
                    "num_cpus": workers or os.cpu_count(),
                    "_system_config": LOCAL_SYSTEM_CONFIG,
                }
            )
            ray.init(address=address, include_dashboard=False, log_to_driver=False, **local)
        count = max(1, min(parallel, workers or int(ray.cluster_resources().get("CPU", 1))))
        actor = ray.remote(
            num_cpus=1,
            max_restarts=0,
            concurrency_groups={"play": -(-parallel // count), "control": 1},
        )(EpisodeActor)
        self._actors = [actor.remote(player) for _ in range(count)]
        self._load = [0] * count
        self._lock = threading.Lock()

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        with self._lock:
            index = min(range(len(self._actors)), key=self._load.__getitem__)
            self._load[index] += 1
        folder = task.log_root / task.spec.episode_id
        logs = pack(folder) if task.resume and folder.is_dir() else None
        play = self._actors[index].play.options(concurrency_group="play")
        result: Future[EpisodeRecord] = Future()
        play.remote(task, logs).future().add_done_callback(
            lambda done: self._settle(index, task, done, result)
        )
        # the actor plays as soon as it is up (each play has a thread of its own)
        self._actors[index].__ray_ready__.remote().future().add_done_callback(
            lambda _: begun(result)
        )
        return result

    def _settle(
        self, index: int, task: EpisodeTask, done: Future[Played], result: Future[EpisodeRecord]
    ) -> None:
        with self._lock:
            self._load[index] -= 1
        error = done.exception()
        if error is not None:
            result.set_exception(error)
            return
        played = done.result()
        folder = task.log_root / task.spec.episode_id
        shutil.rmtree(folder, ignore_errors=True)
        try:
            unpack(played.logs, folder)
        except Exception as refused:  # an error here would leave `result` unsettled
            result.set_exception(refused)
            return
        if played.record is None:
            result.set_exception(EpisodeInterrupted(task.spec.key))
        else:
            result.set_result(replace(played.record, log_dir=str(folder)))

    def interrupt(self) -> None:
        """Ctrl-C in each running episode: it ends as interrupted, its logs come back."""
        for actor in self._actors:
            actor.interrupt.options(concurrency_group="control").remote()

    def close(self) -> None:
        """Each actor ends once its episodes have (its servers and games with it), as a
        process exits: its exit handlers remove what it made in /tmp. Ray's own shutdown
        of a local instance would SIGKILL actors still ending, and their children with them
        (a forked game's forkserver left its socket folder behind), so it waits for them."""
        ending = [actor.__ray_terminate__.remote() for actor in self._actors]
        if self._started:
            self._ray.wait(ending, num_returns=len(ending), timeout=ACTOR_EXIT_SECONDS)
            self._ray.shutdown()


class NotAFileError(tarfile.FilterError):
    """An archive's member that is neither a regular file nor a folder."""

    def __init__(self, tarinfo: tarfile.TarInfo) -> None:
        super().__init__(f"{tarinfo.name!r} is not a regular file or a folder", tarinfo)


class TooLargeError(tarfile.FilterError):
    """An archive's member larger than `pack` makes one."""

    def __init__(self, tarinfo: tarfile.TarInfo) -> None:
        size = f"{tarinfo.size:,} bytes, over {PACKED_FILE_BYTES:,}"
        super().__init__(f"{tarinfo.name!r} is {size}", tarinfo)


PACKED_FILE_BYTES = 64 * 1024 * 1024  # a larger file is left out (an episode's own are ~MB)
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MADE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def pack(folder: Path) -> bytes:
    """A folder's files as a gzipped tar (an episode's logs: a few hundred KB).

    The MCP servers wrote into the folder, and a server's process may still be changing it,
    so each name is opened once, relative to its folder's open descriptor and without
    following a link, and the open file is judged (`fstat`): only regular files with no
    other hard link (a link to a file outside would carry that file out), of at most
    PACKED_FILE_BYTES, and folders go in; links, pipes, sockets and devices are left out,
    never opened to read. A name swapped for a link between a look and an open cannot
    carry anything in, and a file that vanishes or changes meanwhile costs that file only,
    never the episode's result."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        try:
            top = os.open(folder, _FOLDER)
        except OSError:
            top = None  # no folder (or a link in its place): nothing to pack
        if top is not None:
            try:
                _pack_folder(archive, top, ".")
            finally:
                os.close(top)
    return buffer.getvalue()


def _pack_folder(archive: tarfile.TarFile, fd: int, name: str) -> None:
    archive.addfile(_member(name, tarfile.DIRTYPE, 0o755))
    for entry in sorted(os.listdir(fd)):
        inner = f"{name}/{entry}"
        try:
            sub = os.open(entry, _FOLDER, dir_fd=fd)
        except OSError:  # not a folder (or a link to one, or gone): perhaps a file
            data = _alone(fd, entry)
            if data is not None:
                archive.addfile(_member(inner, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
            continue
        try:
            _pack_folder(archive, sub, inner)
        finally:
            os.close(sub)


def _alone(folder: int, entry: str) -> bytes | None:
    """The bytes of `entry` in the open `folder` if it is a regular file with no other hard
    link and of at most PACKED_FILE_BYTES, else None. The name is opened as a path only
    (O_PATH: no pipe or device is opened, no link followed) and then read through that same
    open file."""
    try:
        handle = os.open(entry, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            return None
        if info.st_size > PACKED_FILE_BYTES:
            return None
        fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    finally:
        os.close(handle)
    try:
        return os.pread(fd, PACKED_FILE_BYTES, 0)
    except OSError:
        return None
    finally:
        os.close(fd)


def _member(name: str, kind: bytes, mode: int, size: int = 0) -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type, member.mode, member.size = kind, mode, size
    return member


def extractable(member: tarfile.TarInfo, destination: str) -> tarfile.TarInfo:
    """A member `unpack` may write: a regular file or a folder (`pack` never makes a link),
    of at most PACKED_FILE_BYTES, at a relative path with no `..`. Judged by its name alone:
    what is on disk at `destination` is never followed (`unpack` writes without following)."""
    if not (member.isfile() or member.isdir()):
        raise NotAFileError(member)
    if member.name.startswith(("/", os.sep)) or os.path.isabs(member.name):
        raise tarfile.AbsolutePathError(member)
    if ".." in PurePosixPath(member.name).parts:
        raise tarfile.OutsideDestinationError(member, os.path.join(destination, member.name))
    if member.size > PACKED_FILE_BYTES:
        raise TooLargeError(member)
    return member


def unpack(data: bytes, folder: Path) -> list[str]:
    """Write a packed folder's files into `folder`, or nothing at all: every member is
    checked before any is written, and one that is a link, has an absolute path, would land
    outside `folder` or is larger than `pack` makes one refuses the archive (a
    tarfile.FilterError naming it). Each name is made once, relative to its folder's open
    descriptor, never through a link nor over a file already there (O_EXCL | O_NOFOLLOW):
    whatever appears in `folder` meanwhile gets nothing written through it, and costs that
    member alone (logged), never the episode's result. Returns the members left out."""
    folder.mkdir(parents=True, exist_ok=True)
    left_out = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        members = [extractable(member, str(folder)) for member in archive.getmembers()]
        top = os.open(folder, _FOLDER)
        try:
            for member in members:
                try:
                    _unpack_member(archive, member, top)
                except OSError as e:
                    left_out.append(member.name)
                    log.warning("%s: %s left out of the episode's logs: %s", folder, member.name, e)
        finally:
            os.close(top)
    return left_out


def _unpack_member(archive: tarfile.TarFile, member: tarfile.TarInfo, top: int) -> None:
    *folders, name = PurePosixPath(member.name).parts or (".",)
    fds = [top]
    try:
        for part in folders:
            fds.append(os.open(part, _FOLDER, dir_fd=fds[-1]))
        if member.isdir():
            if name != ".":
                with contextlib.suppress(FileExistsError):  # listed before its files
                    os.mkdir(name, 0o755, dir_fd=fds[-1])
            return
        source = archive.extractfile(member)
        made = os.open(name, _MADE, 0o644, dir_fd=fds[-1])
        with os.fdopen(made, "wb") as file, source or io.BytesIO() as read:
            shutil.copyfileobj(read, file)
    finally:
        for fd in fds[1:]:
            os.close(fd)
