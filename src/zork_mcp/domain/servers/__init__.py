"""MCP servers: the config file and its entries, a server's environment, the protocol eras,
each server's connection state machine and start-up time, where each may write and the roots
it is named, and what a confined server may reach (its folders, ports and host list)."""
