"""A sealed process (adapters/posix/namespaces.py) run through the spawn launcher, as a
server is: its tree read-only but what it may write, no capability left, and its parent
outside its PID namespace passing its signals on and its end back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from zork_mcp.adapters.posix.namespaces import namespaces_available

pytestmark = pytest.mark.skipif(not namespaces_available(), reason="needs user namespaces")
LAUNCHER = "zork_mcp.adapters.posix.confined"


def sealed(writable: Path, *command: str, **popen) -> subprocess.Popen:
    """`command` run by the launcher as a server is: no Landlock here, its tree sealed."""
    argv = [sys.executable, "-m", LAUNCHER, "-", "open", "sealed", str(writable), "--"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen([*argv, *command], env=env, start_new_session=True, **popen)


def python(code: str) -> tuple[str, ...]:
    return (sys.executable, "-I", "-c", code)


def test_its_tree_is_read_only_but_what_it_may_write_and_it_holds_no_capability(tmp_path):
    own, other = tmp_path / "own", tmp_path / "other.txt"
    own.mkdir()
    other.write_text("not its own\n")
    code = (
        "import os, sys\n"
        f"open({str(own / 'made.txt')!r}, 'w').write('made')\n"
        f"os.chmod({str(own / 'made.txt')!r}, 0o600)\n"
        "try:\n"
        f"    os.chmod({str(other)!r}, 0o600)\n"
        "except OSError as e:\n"
        "    print(e.errno)\n"
        "status = open('/proc/self/status').read().splitlines()\n"
        "caps = dict(line.split(':') for line in status if line.startswith('Cap'))\n"
        "print(caps['CapEff'].strip(), caps['CapPrm'].strip(), caps['CapBnd'].strip())\n"
        "print(os.getpid())\n"
    )
    process = sealed(own, *python(code), stdout=subprocess.PIPE, text=True)
    out, _ = process.communicate(timeout=30)
    erofs, caps, pid = out.split("\n")[:3]
    assert process.returncode == 0
    assert int(erofs) == 30, "EROFS: chmod of a file outside what it may write"
    assert caps.split() == ["0000000000000000"] * 3
    assert pid == "1", "the first process of its own PID namespace"
    assert (own / "made.txt").stat().st_mode & 0o777 == 0o600
    assert other.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize(("shell", "code"), [("exit 7", 7), ("true", 0)])
def test_its_parent_exits_as_it_did(tmp_path, shell, code):
    """Its end as its starter sees it: the relay's exit code."""
    process = sealed(tmp_path, "sh", "-c", shell)
    assert process.wait(timeout=30) == code


def test_its_parent_dies_of_the_signal_it_died_of(tmp_path):
    pid_file = str(tmp_path / "pid")
    code = (
        f"import os, time; open({pid_file!r}, 'w').write(os.readlink('/proc/self')); time.sleep(60)"
    )
    process = sealed(tmp_path, *python(code))
    os.kill(int(_written(tmp_path / "pid")), signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL


def test_a_signal_to_its_parent_reaches_it(tmp_path):
    handled = tmp_path / "handled"
    code = (
        "import signal, sys, time\n"
        "def stop(sig, frame):\n"
        f"    open({str(handled)!r}, 'w').write(str(sig)); sys.exit(3)\n"
        "signal.signal(signal.SIGTERM, stop)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    process = sealed(tmp_path, *python(code), stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "ready\n"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 3
    assert handled.read_text() == str(int(signal.SIGTERM))


def test_it_dies_with_its_parent_and_takes_its_daemons_along(tmp_path):
    """The relay killed with SIGKILL (as the reaper's last word): the kernel kills the
    process it relayed, and with it every process of its namespace, a setsid daemon's too."""
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        open({str(tmp_path / 'daemon')!r}, 'w').write(os.readlink('/proc/self'))\n"
        "        time.sleep(60)\n"
        "    os._exit(0)\n"
        f"open({str(tmp_path / 'server')!r}, 'w').write(os.readlink('/proc/self'))\n"
        "time.sleep(60)\n"
    )
    process = sealed(tmp_path, *python(code))
    server, daemon = (int(_written(tmp_path / name)) for name in ("server", "daemon"))
    process.kill()
    process.wait(timeout=30)
    assert _gone(server) and _gone(daemon)


def _written(path: Path, seconds: float = 20.0) -> str:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.02)
    return path.read_text()


def _gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.02)
    return False


def test_a_sigterm_ends_a_server_without_a_handler_as_it_would_outside(tmp_path):
    """A namespace's first process ignores a signal it has no handler for: its parent sees
    that and kills it, then dies of SIGTERM itself, at once, not at the reaper's SIGKILL."""
    code = "import time; print('ready', flush=True); time.sleep(60)"
    process = sealed(tmp_path, *python(code), stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "ready\n"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=5) == -signal.SIGTERM


def test_a_signal_the_server_ignores_stays_ignored(tmp_path):
    code = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"  # it ends at stdin's EOF
    )
    process = sealed(tmp_path, *python(code), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     text=True)  # fmt: skip
    assert process.stdout.readline() == "ready\n"
    process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert process.poll() is None, "ignored, as it asked"
    process.stdin.close()
    assert process.wait(timeout=10) == 0
