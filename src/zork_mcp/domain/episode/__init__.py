"""An episode: its state and totals, the map and history the agent is shown, the memories it is
given, and its text as a person reads it."""
