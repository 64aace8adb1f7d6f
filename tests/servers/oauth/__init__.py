"""The real-peer rig of the sign-in tests: a real authorization server (provider.mjs, npm oidc-provider)
in front of an OAuth-protected MCP server (resource.py), and a stand-in for the person's browser
(rig.Browser)."""
