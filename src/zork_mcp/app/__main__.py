from zork_mcp.app.cli import run

run()
