"""The LLM exchange: requests, responses, tool calls, and the messages of a conversation."""
