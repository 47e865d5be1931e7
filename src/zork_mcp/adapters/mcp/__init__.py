"""The ToolServer port over MCP, with the official SDK's ClientSession.

Transport-independent parts live here (`session`, `server_session`, `sdk_errors`,
`results`, and `sdk`, the one home of the SDK's private parts we use); each transport is a
subpackage (`stdio`, `http`) that only opens the SDK's streams.
"""
