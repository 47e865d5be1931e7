"""The LLM port over each provider's HTTP API (one JSON endpoint with retries, a wire base,
each provider's message rules), and its scripted and function-driven doubles.
"""
