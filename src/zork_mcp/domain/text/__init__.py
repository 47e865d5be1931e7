"""Text from outside, made safe to read: any text an LLM, an MCP server, the game or a file
sends, as the terminal, a log or a JSON encoder takes it (`inert`: no control sequence
acts; `encoding`: what cannot be encoded is escaped, never lost)."""
