"""An in-process server for the wire's rows: it echoes what was typed, then megabytes (#40)."""

from __future__ import annotations

import warnings
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

from mcp_widgets.demo._asking import Asker, converse

from .schemas import NAME

__all__ = ["shouting"]


def shouting(size: int) -> MCPServer:
    """A server whose `shout(n)` asks for a name, then sends `n` log lines and returns a text, each of
    `size` characters starting with the name."""
    server = MCPServer("shouting")

    @server.tool(description="Asks for a name, then shouts it with megabytes after.")
    async def shout(ctx: Context[Any, Any], n: int = 1) -> Any:
        async def body(asker: Asker) -> str:
            answer = await asker.form("name", "Who?", NAME)
            text = f"hello {(answer.content or {}).get('name')} " + "y" * size
            for _ in range(n):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    sending = ctx.session.send_log_message("info", text, related_request_id=ctx.request_id)
                await sending
            return text

        return await converse(ctx, body)

    return server
