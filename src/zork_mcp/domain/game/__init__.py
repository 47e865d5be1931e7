"""The game: what it shows the agent, the command rule at its boundary, what its words and story
file say."""
