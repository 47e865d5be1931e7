"""A project directory for the CLI: a pyproject with a [tool.zorkgpt.mcp] table and,
when servers are given, the mcp_config.json beside it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def write_project(
    directory: Path, servers: Mapping[str, Any] | None = None, **mcp: bool | float | str
) -> Path:
    """Write the files; return the pyproject's path. `mcp` are the table's keys, in order."""
    if servers is not None:
        config = {"mcpServers": dict(servers)}
        (directory / "mcp_config.json").write_text(json.dumps(config))
    lines = [f"{key} = {_toml(value)}\n" for key, value in mcp.items()]
    pyproject = directory / "pyproject.toml"
    pyproject.write_text("[tool.zorkgpt.mcp]\n" + "".join(lines))
    return pyproject


def _toml(value: bool | float | str) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return json.dumps(value)
