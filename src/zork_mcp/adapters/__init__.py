"""Adapters: real bindings of the ports (MCP, LLMs, Jericho, telemetry) and in-memory fakes."""
