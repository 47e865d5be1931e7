"""Where the tests find the project and their server scripts."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


FAULT_SERVER = ROOT / "tests" / "support" / "fault_server.py"
