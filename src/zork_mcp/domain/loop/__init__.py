"""The tool-calling loop: one agent turn, its limits, policy, records and report, the batch
error policy, recovery, the connection state machine, the context budget, and the LLM
exchange it speaks."""
