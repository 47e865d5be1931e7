"""`zork-mcp eval`: parallel, resumable sweeps of episodes, their results and report."""
