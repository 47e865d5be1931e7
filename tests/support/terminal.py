"""A real terminal for the app's display: a pane of Debian's tmux, on a server of its own
(its socket in the test's folder), driven with `send-keys` and read with `capture-pane`.

`tmux_pane()` installs tmux with apt-get when it is missing and this is root on a Debian
machine (as CI is); elsewhere the tests that need it skip, saying how to get it. Under CI a
failed install fails. The pane's server is killed when the block ends, whatever happened.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.debian import install
from tests.support.processes import processes_in_groups

EXIT = re.compile(r"^EXIT=(\d+)$", re.MULTILINE)
PROMPT = "$"  # the pane's PS1, "$ ", as capture-pane shows it (trailing blanks dropped)


def ensure_tmux() -> str:
    """tmux's path, installed first if it can be; else the test skips."""
    found = shutil.which("tmux")
    if found:
        return found
    install(["tmux"])
    return shutil.which("tmux") or pytest.fail("tmux is not on PATH after its install")


@dataclass
class Pane:
    """One tmux window's pane, running a shell."""

    tmux: list[str]  # tmux with its socket
    target: str
    runs: int = 0

    def run(self, command: Sequence[str], cwd: Path) -> None:
        """Type `command` at the shell and press Enter; its exit code is echoed as EXIT=n."""
        line = f"cd {shlex.quote(str(cwd))} && {shlex.join(command)}; echo EXIT=$?"
        self._tmux("send-keys", "-t", self.target, "-l", line)
        self._tmux("send-keys", "-t", self.target, "Enter")
        self.runs += 1

    def screen(self) -> str:
        """What the pane shows now (its visible lines, not its scrollback)."""
        return self._tmux("capture-pane", "-p", "-t", self.target)

    def title(self) -> str:
        return self._tmux("display-message", "-p", "-t", self.target, "#{pane_title}").strip()

    def wait_for_prompt(self, timeout: float) -> None:
        """Until the shell shows its first prompt: keys typed before it are echoed by the
        terminal, and the shell then prints its prompt and the output on the line after them,
        where `EXIT=n` no longer starts a line (a busy machine showed it)."""
        self._screen_when(lambda shown: shown.strip() == PROMPT, timeout, 0.05,
                          "the shell showed no prompt")  # fmt: skip

    def wait_for_exit(self, timeout: float) -> tuple[int, str]:
        """The last command's exit code and the screen once it has ended."""

        def ended(shown: str) -> bool:
            return len(EXIT.findall(shown)) >= self.runs

        shown = self._screen_when(ended, timeout, 0.2, "the command did not end")
        return int(EXIT.findall(shown)[-1]), shown

    def _screen_when(
        self, done: Callable[[str], bool], timeout: float, every: float, failure: str
    ) -> str:
        """The screen once `done` holds for it, looked at every `every` seconds."""
        deadline = time.monotonic() + timeout
        while not done(shown := self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{failure} in {timeout} s; the pane shows:\n{shown}")
            time.sleep(every)
        return shown

    def _tmux(self, *args: str) -> str:
        done = subprocess.run([*self.tmux, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"tmux {args[0]} failed: {done.stderr}"
        return done.stdout


@contextmanager
def tmux_pane(env: Mapping[str, str], width: int = 160, height: int = 120) -> Iterator[Pane]:
    """A shell in a detached `width` x `height` pane of a tmux server of its own, started with
    `env` (UTF-8, so that the display's `…` and `−` arrive as they are)."""
    folder = Path(tempfile.mkdtemp(prefix="tmux"))  # short: a socket path fits in 108 bytes
    tmux = [ensure_tmux(), "-u", "-S", str(folder / "s"), "-f", "/dev/null"]
    # The pane's size is its own: a COLUMNS or LINES the runner had (a pytest-xdist worker is
    # started with COLUMNS=80, set by the readline its main process loaded) would override it.
    size_free = {name: value for name, value in env.items() if name not in ("COLUMNS", "LINES")}
    started = {**size_free, "LC_ALL": "C.UTF-8", "SHELL": "/bin/sh", "PS1": f"{PROMPT} "}
    size = ["-x", str(width), "-y", str(height)]
    try:
        subprocess.run(
            [*tmux, "new-session", "-d", "-s", "play", *size, "/bin/sh"],
            env=started,
            check=True,
            timeout=30,
        )
        pane = Pane(tmux, "play")
        pane.wait_for_prompt(10)
        yield pane
    finally:
        pids = _tmux_pids(tmux)
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)
        _wait_gone(pids, 10)
        shutil.rmtree(folder, ignore_errors=True)


def _tmux_pids(tmux: list[str]) -> list[int]:
    """The tmux server's pid and its panes' shells' (none when it never started)."""
    done = subprocess.run(
        [*tmux, "list-panes", "-a", "-F", "#{pid} #{pane_pid}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return sorted({int(pid) for pid in done.stdout.split()}) if done.returncode == 0 else []


def _wait_gone(pids: list[int], timeout: float) -> None:
    """`kill-server` returns before its server and shells have exited (they take a moment
    more on a busy machine); a test that then looks for what it started must not find them.
    Each leads a process group of its own (tmux's server and every pane's shell call setsid)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and processes_in_groups(pids):
        time.sleep(0.05)
