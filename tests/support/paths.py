"""Where the tests find the project, their server scripts and their data."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAULT_SERVER = ROOT / "tests" / "support" / "fault_server.py"
CHECKPOINT_BEFORE_ISSUE_28 = ROOT / "tests" / "data" / "checkpoint_before_issue_28.pickle"
CHECKPOINT_BEFORE_ISSUE_48 = ROOT / "tests" / "data" / "checkpoint_before_issue_48.pickle"
