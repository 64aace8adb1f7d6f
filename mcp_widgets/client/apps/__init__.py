"""MCP Apps in the client: which tools have one, their views, the bridge the kernel answers, and a
server's question shown by its own app. See docs/apps.md and docs/architecture.md.
"""
