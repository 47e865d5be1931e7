"""Where episodes and sweeps are kept: checkpoints in a file, sweep results in SQLite, and the
in-memory fakes of both ports.
"""
