"""What an HTTP status a server answered means to a ToolServer caller.

The SDK folds every 4xx and 5xx into one JSON-RPC error; a response hook keeps the status
so the adapter can tell an auth problem from a dead server.
"""

from __future__ import annotations

import re
from typing import Any

AUTH_STATUSES = (401, 403)


class StatusWatch:
    """The last error status of one session's HTTP exchanges (None: none failed)."""

    def __init__(self) -> None:
        self.failed: int | None = None
        self.lost = False

    async def __call__(self, response: Any) -> None:
        if response.status_code >= 400:
            self.failed = response.status_code
        if response.status_code == 404 and "mcp-session-id" in response.request.headers:
            self.lost = True

    def problem(self, server: str, url: str, header_sources: str) -> str | None:
        """An actionable sentence for the failed status, or None if none failed."""
        status = self.failed
        if status in AUTH_STATUSES:
            word = "Unauthorized" if status == 401 else "Forbidden"
            where = f"server '{server}' at {url} answered {status} {word}"
            if not header_sources:
                return (
                    f"{where}, and mcp_config.json sends it no header. If it wants a token, "
                    f'add one to its entry, e.g. "headers": {{"Authorization": '
                    f'"Bearer ${{{_variable(server)}_TOKEN}}"}}.'
                )
            return (
                f"{where}: check {header_sources} in mcp_config.json, and that the token it "
                "carries is valid for this server."
            )
        if self.lost:
            return f"server '{server}' at {url} lost the MCP session (404 for its session id)"
        if status is not None and status >= 500:
            return f"server '{server}' at {url} answered {status}: it is failing"
        return None


def _variable(server: str) -> str:
    return re.sub(r"\W", "_", server).upper()
