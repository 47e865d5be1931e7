"""A process group runs while one of its processes does; a zombie has ended."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from zork_mcp.adapters.posix.process_table import group_running


def test_a_group_runs_while_its_leader_does_and_not_once_it_is_a_zombie():
    leader = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              process_group=0)  # fmt: skip
    try:
        assert group_running(leader.pid)
        os.kill(leader.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while group_running(leader.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not group_running(leader.pid)
        stat = Path(f"/proc/{leader.pid}/stat").read_text()
        assert stat.rsplit(")", 1)[1].split()[0] == "Z"  # ended, its status not yet read
    finally:
        leader.kill()
        leader.wait()
    assert not group_running(leader.pid)


def test_no_process_of_this_machine_runs_in_a_group_nobody_leads():
    assert not group_running(2**22 + 1)  # above Linux's largest pid
