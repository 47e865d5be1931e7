"""zork_mcp: an LLM agent that plays Zork I and may call MCP tools while it decides."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("zork-mcp")  # pyproject.toml is its one home
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
