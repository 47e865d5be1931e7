"""An episode's log folder travels between a Ray worker and the driver as a tar.gz, and the
MCP servers wrote into it: packing takes its regular files and folders only, unpacking
writes nothing but those, inside the target, and refuses an archive holding anything else."""

from __future__ import annotations

import io
import os
import re
import stat
import tarfile
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zork_mcp.adapters.sweep.ray_cluster import Played, RaySweepBackend, pack, unpack
from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.episodes import Cell, EpisodeSpec, EpisodeTask, ModelSpec

SECRET = b"outside the episode: never to be packed"


def snapshot(root: Path, leave_out: Path | None = None) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under `root` (but `leave_out`): its kind and its bytes or link target."""
    seen: dict[str, tuple[str, bytes | str]] = {}
    for here, folders, files in os.walk(root):
        if leave_out is not None and Path(here) == leave_out:
            folders[:] = []
            continue
        for name in folders + files:
            path = Path(here, name)
            if path == leave_out:
                continue
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                seen[str(path)] = ("link", os.readlink(path))
            elif stat.S_ISDIR(mode):
                seen[str(path)] = ("folder", "")
            elif stat.S_ISREG(mode):
                seen[str(path)] = ("file", path.read_bytes())
            else:
                seen[str(path)] = ("other", stat.filemode(mode))
    return seen


def test_packing_leaves_out_links_and_special_files_and_the_files_come_through(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    (outside / "hard-target.txt").write_bytes(SECRET + b" (hard)")
    episode = tmp_path / "worker" / "ep-1"
    server = episode / "servers" / "notes"
    server.mkdir(parents=True)
    files = {
        episode / "events.jsonl": b'{"type": "tool_result", "text": "ok"}\n',
        episode / "episode.log": bytes(range(256)) * 4,
        server / "out.bin": os.urandom(5000),
        server / "deeper" / "empty.txt": b"",
    }
    (server / "deeper").mkdir()
    for path, data in files.items():
        path.write_bytes(data)
    (server / "to-secret").symlink_to(outside / "secret.txt")
    (server / "to-outside").symlink_to(outside, target_is_directory=True)
    (server / "relative").symlink_to("out.bin")  # inside, but a link all the same
    os.link(outside / "hard-target.txt", server / "hard")
    os.mkfifo(server / "fifo")
    target = tmp_path / "driver" / "ep-1"
    target.parent.mkdir()
    before = snapshot(tmp_path, leave_out=target)

    data = pack(episode)

    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        members = archive.getmembers()
    assert all(m.isfile() or m.isdir() for m in members), [(m.name, m.type) for m in members]
    names = {os.path.normpath(m.name) for m in members}
    assert names.isdisjoint({"servers/notes/" + n for n in ("to-secret", "hard", "fifo")})

    unpack(data, target)

    assert snapshot(tmp_path, leave_out=target) == before  # nothing outside changed
    unpacked = snapshot(target)
    assert {kind for kind, _ in unpacked.values()} == {"file", "folder"}  # no link, no fifo
    regular = {p: d for p, (kind, d) in unpacked.items() if kind == "file"}
    assert regular == {str(target / p.relative_to(episode)): d for p, d in files.items()}


def malicious(tmp_path: Path, name: str, kind: bytes, linkname: str = "") -> bytes:
    """A tar.gz with a harmless file first, then `name` of type `kind`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member_name, member_kind, target in (
            ("harmless.txt", tarfile.REGTYPE, ""),
            (name, kind, linkname),
        ):
            member = tarfile.TarInfo(member_name)
            member.type = member_kind
            member.linkname = target
            body = b"pwned" if member_kind == tarfile.REGTYPE else b""
            member.size = len(body)
            archive.addfile(member, io.BytesIO(body))
    return buffer.getvalue()


CASES = {
    "parent": ("../escape", tarfile.REGTYPE, ""),
    "deep-parent": ("a/../../escape", tarfile.REGTYPE, ""),
    "absolute": ("{tmp}/absolute", tarfile.REGTYPE, ""),
    "symlink-outside": ("link", tarfile.SYMTYPE, "{tmp}/outside"),
    "symlink-inside": ("link", tarfile.SYMTYPE, "harmless.txt"),
    "hardlink-inside": ("hard", tarfile.LNKTYPE, "harmless.txt"),
    "hardlink-outside": ("hard", tarfile.LNKTYPE, "../outside/kept.txt"),
    "fifo": ("fifo", tarfile.FIFOTYPE, ""),
}


@pytest.mark.parametrize("case", CASES)
def test_an_archive_with_a_link_or_a_path_outside_is_refused_and_writes_nothing(tmp_path, case):
    name, kind, linkname = CASES[case]
    name, linkname = name.format(tmp=tmp_path), linkname.format(tmp=tmp_path)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "kept.txt").write_bytes(SECRET)
    target = tmp_path / "driver" / "ep-1"
    target.parent.mkdir()
    data = malicious(tmp_path, name, kind, linkname)
    before = snapshot(tmp_path, leave_out=target)

    with pytest.raises(tarfile.FilterError, match=re.escape(repr(name))):
        unpack(data, target)

    assert snapshot(tmp_path, leave_out=target) == before
    assert not (tmp_path / "escape").exists()
    assert list(target.iterdir()) == []  # checked first: not even the harmless file


def test_the_driver_settles_an_episode_whose_logs_are_refused_with_the_error(tmp_path):
    """Unpacking runs in a done-callback: an error raised there would leave the episode's
    future unsettled and the sweep waiting for it for ever."""
    spec = EpisodeSpec("s", Cell(ModelSpec(parse_model("local:m")), "off"), 0, 20, 5)
    task = EpisodeTask(spec, tmp_path / "logs", Path("x"), ProjectSettings())
    backend = RaySweepBackend.__new__(RaySweepBackend)  # no Ray: only its bookkeeping
    backend._lock, backend._load = threading.Lock(), [1]
    done: Future[Played] = Future()
    done.set_result(Played(spec.record(status="done"), malicious(tmp_path, "../x", b"0")))
    result: Future = Future()

    backend._settle(0, task, done, result)

    assert result.done()
    assert isinstance(result.exception(timeout=0), tarfile.FilterError)
    assert not (tmp_path / "logs" / "x").exists()


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pause=st.sampled_from([0.0, 0.00001, 0.0001, 0.001]), packs=st.integers(5, 20))
def test_a_file_swapped_with_a_link_to_a_secret_while_packing_never_carries_it(
    tmp_path_factory, pause, packs
):
    """A server's daemon swaps a file in its folder between a regular file and a link to a
    secret as fast as it can (issue 66: 2 of 4 packs carried the secret, one failed with
    EINVAL): every pack succeeds, and none holds the secret."""
    root = tmp_path_factory.mktemp("race")
    (root / "secret.txt").write_bytes(SECRET)
    server = root / "ep" / "servers" / "notes"
    server.mkdir(parents=True)
    swapped, spare, stop = server / "notes.jsonl", server / ".spare", threading.Event()

    def swap() -> None:
        while not stop.is_set():
            spare.unlink(missing_ok=True)
            spare.write_bytes(b"a note\n")
            os.replace(spare, swapped)
            time.sleep(pause)
            spare.unlink(missing_ok=True)
            spare.symlink_to(root / "secret.txt")
            os.replace(spare, swapped)
            time.sleep(pause)

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    try:
        archives = [pack(root / "ep") for _ in range(packs)]
    finally:
        stop.set()
        swapper.join()
    for data in archives:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            contents = [archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()]
        assert all(SECRET not in content for content in contents)


@pytest.mark.parametrize("planted", ["file-link", "folder-link", "fifo", "file"])
def test_what_appears_in_the_folder_being_unpacked_gets_nothing_written_through_it(
    tmp_path, planted
):
    """A name already in the driver's folder (a link to a secret or to a folder outside, a
    FIFO, a file) is never opened to write: that member alone is left out, the rest lands."""
    episode = tmp_path / "worker" / "ep-1"
    (episode / "servers" / "notes").mkdir(parents=True)
    (episode / "episode.log").write_text("the episode\n")
    (episode / "servers" / "notes" / "notes.jsonl").write_text("a note\n")
    data = pack(episode)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    target = tmp_path / "driver" / "ep-1"
    (target / "servers").mkdir(parents=True)
    in_the_way = target / "servers" / "notes"
    if planted == "file-link":
        in_the_way.mkdir()
        (in_the_way / "notes.jsonl").symlink_to(outside / "secret.txt")
    elif planted == "folder-link":
        in_the_way.symlink_to(outside, target_is_directory=True)
    elif planted == "fifo":
        in_the_way.mkdir()
        os.mkfifo(in_the_way / "notes.jsonl")
    else:
        in_the_way.mkdir()
        (in_the_way / "notes.jsonl").write_bytes(b"already here")
    before = snapshot(outside)

    left_out = unpack(data, target)

    assert left_out == ["./servers/notes/notes.jsonl"]
    assert snapshot(outside) == before
    assert (target / "episode.log").read_text() == "the episode\n"
