"""Pure logic of the agent: models, policies, the tool-calling loop. No I/O here."""
