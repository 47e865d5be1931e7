"""The agent as an Inspect AI task (`inspect eval zork_mcp/zork`): each sample one episode,
played by our own orchestrator, MCP servers and confinement, with Inspect's model behind the
LLM port. Needs the `inspect` extra; nothing the base install loads imports it."""
