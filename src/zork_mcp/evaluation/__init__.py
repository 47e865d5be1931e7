"""Evaluation sweeps: what a sweep asks for, what an episode yields, and the statistics."""
