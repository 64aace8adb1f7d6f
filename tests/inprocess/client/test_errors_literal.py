"""A server's error message reaches the person literally: its terminal escapes shown, not obeyed (a traceback
is rendered with ANSI colours), and bounded. Against a real in-process MCPServer."""

from __future__ import annotations

import traceback
from typing import Any

import mcp_types
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from mcp_widgets import ServerError, connect_sync

pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py

ESCAPES = "\x1b[2J\x1b[8mhidden\x1b]0;title\x07\u202e"
SHOWN = "\\x1b[2J\\x1b[8mhidden\\x1b]0;title\\x07U+202E"


def _failing_server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("failing")

    @server.tool()
    async def fail() -> str:
        raise MCPError(code=mcp_types.INVALID_PARAMS, message="bad " + ESCAPES + "x" * 100_000)

    return server


def test_a_server_error_message_is_literal_and_clipped() -> None:
    with connect_sync(_failing_server(), name="failing") as srv, pytest.raises(ServerError) as info:
        srv.call_tool_sync("fail")
    printed = "".join(traceback.format_exception(info.value))
    assert "bad " + SHOWN in printed and "more characters)" in printed
    assert "\x1b" not in printed and "\u202e" not in printed and "\x07" not in printed
    assert len(str(info.value)) < 2500
