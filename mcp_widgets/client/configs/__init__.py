"""The servers people already configured (`mcp.json`): lookup by name and the servers table.
See docs/servers.md and docs/architecture.md.
"""
