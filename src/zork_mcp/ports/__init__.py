"""The ports: what the domain needs from the outside world, as typing.Protocols."""

from zork_mcp.ports.game_env import GameEnv
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.telemetry import Span, Telemetry
from zork_mcp.ports.tool_server import ToolServer, ToolSession

__all__ = ["LLM", "GameEnv", "Span", "Telemetry", "ToolServer", "ToolSession"]
