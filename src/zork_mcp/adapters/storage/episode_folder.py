"""An episode's log folder as a run finds it: what it held before the run wrote anything (a
new episode starts only where nothing is), and the undoing of exactly what the run then
made there and above it, for a run that stops before its episode began."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from zork_mcp.adapters.storage.checkpoint_file import CHECKPOINT_FILE, PICKLED_FILE
from zork_mcp.adapters.storage.own_files import ForeignFileError


@dataclass(frozen=True)
class EpisodeFolder:
    """`entries`: the names the folder held (none if it was missing); `missing`: the folder
    and those of its parents that did not exist, innermost first."""

    path: Path
    entries: tuple[str, ...] = ()
    missing: tuple[Path, ...] = ()

    @classmethod
    def look(cls, path: Path) -> EpisodeFolder:
        """The folder as it is now; refused if something else (a file, a link) has its name,
        or a file has the name of a folder it would be made in."""
        missing: list[Path] = []
        here = path
        while not os.path.lexists(here) and here.parent != here:
            missing.append(here)
            here = here.parent
        if missing:
            if not here.is_dir():  # a link the user made to a folder of theirs is one
                raise ForeignFileError(
                    f"{here} is not a folder, so the episode's folder {path} cannot be made in "
                    "it: pass another --log-dir."
                )
            return cls(path, missing=tuple(missing))
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            what = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
            raise ForeignFileError(
                f"{path} is {what}, so it cannot be an episode's folder: pass another "
                "--episode-id (or --log-dir)."
            )
        return cls(path, tuple(sorted(os.listdir(path))))

    @property
    def holds_checkpoint(self) -> bool:
        """Whether what it held has a checkpoint to resume (the old pickle's format too)."""
        return CHECKPOINT_FILE in self.entries or PICKLED_FILE in self.entries

    def remove_what_was_made(self) -> None:
        """Whatever was made since it was looked at, removed: the folder itself if it was
        missing, then each parent it made that nothing else has filled since; in a folder that
        was there, each name it did not hold. Nothing that was there is touched, and no link
        is followed."""
        if self.missing:
            with contextlib.suppress(FileNotFoundError):
                _remove(self.path)
            for parent in self.missing[1:]:
                with contextlib.suppress(OSError):  # not empty: another run's, now
                    parent.rmdir()
            return
        for name in set(os.listdir(self.path)) - set(self.entries):
            with contextlib.suppress(FileNotFoundError):
                _remove(self.path / name)


def _remove(path: Path) -> None:
    if stat.S_ISDIR(os.lstat(path).st_mode):
        shutil.rmtree(path)  # by descriptor, never through a link (rmtree.avoids_symlink_attacks)
    else:
        path.unlink()
