"""A server's tool listing is literal: MathJax skips our HTML table, escapes are visible, long text is clipped
with how much is left out (a real in-process MCPServer)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from mcp_widgets import connect_sync

pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py

LONG = "Price $5 and $10 \x1b[2J\u202e " + "y" * 10_000


def _server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("listing")

    @server.tool(title="Tool $x$", description=LONG)
    async def price(text: str) -> str:
        return text

    return server


def test_the_tool_table_is_literal_and_clipped() -> None:
    with connect_sync(_server(), name="listing") as srv:
        page = srv.tools._repr_html_()
        text = repr(srv.tools)
    assert page.startswith('<table class="mathjax_ignore tex2jax_ignore">')  # where MathJax would start
    assert "Price $5 and $10 \\x1b[2JU+202E yyy" in page and "more characters)" in page
    assert len(page) < 10_000
    assert "\x1b" not in page + text and "\u202e" not in page + text
    assert "more characters)" in text
