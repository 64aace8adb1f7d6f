"""A server whose resources change (`python live.py` runs it over stdio, `python live.py http` over streamable
HTTP): `live://counter` reads "count N" (followed by `$LIVE_PAD` dots: a large resource).

Its tool `bump(times)` adds one to the counter `times` times and tells subscribers after each (on
2025-11-25 by `notifications/resources/updated` to the sessions that sent `resources/subscribe`, on
2026-07-28 through the `subscriptions/listen` streams); `add_tool(name)` adds a tool and says the tool list
changed; `quit_soon()` ends its process. `server.state` records the subscribe and unsubscribe requests the
server received.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import mcp_types
from mcp.server.mcpserver import Context, MCPServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

COUNTER = "live://counter"


def build_server(name: str = "live", *, subscribe: bool = True) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name)
    state: dict[str, Any] = {"count": 0, "requests": [], "sessions": []}
    server.state = state  # type: ignore[attr-defined]  # what the tests look at

    @server.resource(COUNTER, name="counter", description="A counter that bump() moves.")
    def counter() -> str:
        return f"count {state['count']}" + "." * int(os.environ.get("LIVE_PAD", "0"))

    @server.tool()
    async def bump(ctx: Context, times: int = 1) -> str:
        """Add one to the counter `times` times, telling subscribers after each."""
        modern = str(ctx.protocol_version) >= "2026"
        for _ in range(times):
            state["count"] += 1
            if modern:
                await ctx.notify_resource_updated(COUNTER)
            elif COUNTER in state["subscribed"]:
                await ctx.session.send_resource_updated(COUNTER)
        return f"count {state['count']}"

    @server.tool()
    async def add_tool(ctx: Context, name: str) -> str:
        """Add a tool named `name` and say the tool list changed."""

        def added() -> str:
            return f"I am {name}"

        server.add_tool(added, name=name, description=f"Added as {name}.")
        if str(ctx.protocol_version) >= "2026":
            await ctx.notify_tools_changed()
        else:
            await ctx.session.send_tool_list_changed()
        return "added"

    @server.tool()
    async def quit_soon() -> str:
        """End the server's process 0.2 s from now (over stdio: the server goes away)."""
        import asyncio
        import os

        asyncio.get_running_loop().call_later(0.2, os._exit, 0)
        return "bye"

    state["subscribed"] = set()
    if subscribe:
        low = server._lowlevel_server

        async def on_subscribe(ctx: Any, params: mcp_types.SubscribeRequestParams) -> mcp_types.EmptyResult:
            state["requests"].append(("subscribe", str(params.uri)))
            state["subscribed"].add(str(params.uri))
            return mcp_types.EmptyResult()

        async def on_unsubscribe(ctx: Any, params: mcp_types.UnsubscribeRequestParams) -> Any:
            state["requests"].append(("unsubscribe", str(params.uri)))
            state["subscribed"].discard(str(params.uri))
            return mcp_types.EmptyResult()

        low.add_request_handler("resources/subscribe", mcp_types.SubscribeRequestParams, on_subscribe)
        low.add_request_handler("resources/unsubscribe", mcp_types.UnsubscribeRequestParams, on_unsubscribe)
    return server


def main() -> None:
    """`python live.py` serves over stdio; `python live.py http` over streamable HTTP (prints "PORT <n>")."""
    if sys.argv[1:2] != ["http"]:
        build_server().run("stdio")
        return
    import socket

    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    app = build_server().streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
