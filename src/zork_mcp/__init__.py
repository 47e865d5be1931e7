"""zork_mcp: an LLM agent that plays Zork I and may call MCP tools while it decides."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed metadata when first asked for: not every
    process that imports the package needs importlib.metadata (a game process does not)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("zork-mcp")  # pyproject.toml is its one home
    except PackageNotFoundError:  # run from a source tree that was never installed
        value = "0+unknown"
    globals()[name] = value
    return value
