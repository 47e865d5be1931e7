from zork_mcp.app.command_line import run

run()
