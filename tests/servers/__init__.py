"""Small real MCP servers for the client tests (written with the SDK's MCPServer)."""
