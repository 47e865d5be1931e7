"""The tool-calling loop: one agent turn (its servers connected under their retry policy), the
loop itself with its limits and policy, the batch error policy, recovery (the circuit
breaker, backtracking), the context budget, what the agent's answer must hold, and the
loop's records and report."""
