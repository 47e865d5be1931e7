"""The servers' stderr log keeps a bounded share of the disk (issue 35): each server's stderr
is capped per episode, our own notes too, and the log says what it dropped."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog


def write_stderr(log: StderrLog, server: str, size: int) -> None:
    """A real process writing `size` bytes to the stderr it was given, as a server does."""
    code = f"import sys; sys.stderr.buffer.write(b'e' * {size})"
    subprocess.run([sys.executable, "-c", code], stderr=log.handle(server), check=True)


def test_each_server_keeps_at_most_its_cap_and_the_log_says_what_was_dropped(tmp_path):
    log = StderrLog(tmp_path / "stderr.log", cap_bytes=1000)
    write_stderr(log, "a", 600)
    write_stderr(log, "a", 600)
    write_stderr(log, "b", 300)
    log.close()
    text = (tmp_path / "stderr.log").read_text()
    assert re.sub(r"\[zork_mcp\][^\n]*|\n", "", text) == "e" * (1000 + 300)
    assert "the stderr of server 'a' reached 1000 bytes this episode" in text
    assert "the stderr of server 'a': 200 more bytes were dropped" in text
    assert "server 'b'" not in text


def test_a_server_keeps_one_pipe_for_all_its_processes(tmp_path):
    log = StderrLog(tmp_path / "stderr.log")
    assert log.handle("a") == log.handle("a") != log.handle("b")
    log.close()


def test_notes_are_capped_too(tmp_path):
    log = StderrLog(tmp_path / "stderr.log", cap_bytes=100)
    for _ in range(50):
        log.note("skipped a stdout line that is not JSON-RPC")
    log.close()
    text = (tmp_path / "stderr.log").read_text()
    assert len(text) < 100 + 300
    assert "our notes reached 100 bytes this episode" in text


def test_without_a_path_nothing_is_written_and_nothing_runs(tmp_path):
    log = StderrLog(None)
    assert log.handle("a") == subprocess.DEVNULL
    log.note("x")
    log.close()
    assert list(tmp_path.iterdir()) == []


def test_close_ends_the_draining_threads(tmp_path):
    log = StderrLog(tmp_path / "stderr.log")
    write_stderr(log, "a", 10)
    log.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("mcp-stderr-")]
