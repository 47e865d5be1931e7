"""MCP servers' configuration: the config file, the settings table, a server's environment, the
protocol eras, the roots it is named, and what a confined server may reach."""
