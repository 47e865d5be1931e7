"""What Inspect registers from this package (its `inspect_ai` entry point)."""

from zork_mcp.inspect.task import zork

__all__ = ["zork"]
