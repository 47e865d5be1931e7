"""The application: one episode (`python -m zork_mcp.app`), a sweep's episodes and `show`,
its parts wired by `container.py` from the builders in zork_mcp.builders."""
