"""The Telemetry port: the episode's JSONL logs, a logger, Langfuse and OTLP traces, a fan-out
over several, and the in-memory fake.
"""
