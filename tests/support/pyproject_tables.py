"""Generated [tool.zorkgpt.mcp] tables and the pyproject text that holds them."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from tests.support.strategies import TEXT

values = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.booleans(),
        "config_file": st.text(TEXT, min_size=1, max_size=30),
        "max_tool_iterations": st.integers(1, 10_000),
        "tool_call_timeout_seconds": st.floats(0.001, 1e6) | st.integers(1, 10_000),
        "server_startup_timeout_seconds": st.floats(0.001, 1e6) | st.integers(1, 10_000),
        "force_tool_support": st.booleans(),
        "background_spare": st.booleans(),
        "server_start": st.sampled_from(["auto", "fork", "spawn"]),
    },
)


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text.replace("\x7f", "\\u007f")
    return repr(value)


def pyproject(table: dict, before: str, after: str) -> str:
    lines = [f"{key} = {toml_value(value)}" for key, value in table.items()]
    return "\n".join([before, "[tool.zorkgpt.mcp]", *lines, after])
