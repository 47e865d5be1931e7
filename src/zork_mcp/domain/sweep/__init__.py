"""Evaluation sweeps' pure logic: who an episode is and what it yields, how a worker stops
it, the scheduler, and the statistics; the app reads sweeps and plays episodes."""
