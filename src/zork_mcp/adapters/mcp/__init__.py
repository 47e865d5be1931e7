"""The ToolServer port over MCP, with the official SDK's ClientSession.

Transport-independent parts live here (`session`, `server_session`, `sdk_errors`,
`results`); each transport is a subpackage (`stdio`) that only opens the SDK's streams.
"""
