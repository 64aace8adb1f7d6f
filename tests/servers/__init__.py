"""Small real MCP servers for the client tests (written with the SDK's MCPServer), and where things are."""

from pathlib import Path

SERVERS = Path(__file__).resolve().parent
"""This folder: the servers a test runs as a process (`[sys.executable, str(SERVERS / "rawrpc.py")]`)."""
TESTS = SERVERS.parent
ROOT = TESTS.parent
"""The repository."""
