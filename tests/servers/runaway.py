"""A hostile server that never stops asking, and one that is slow: for bounding questions and calls.

On 2025-11-25 a tool sends `elicitation/create` during the call; on 2026-07-28 it answers with an
`InputRequiredResult` each round (the round number rides `request_state`, unsealed: this is a test server).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types as t
from mcp.server.mcpserver import Context, MCPServer
from mcp_types.version import is_version_at_least

LEGACY, MODERN = "2025-11-25", "2026-07-28"  # written out: the server needs nothing of the package

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}
"""One field with a default: `handlers.accept_defaults` answers it."""


def _modern(ctx: Context[Any, Any]) -> bool:
    return is_version_at_least(ctx.protocol_version or LEGACY, MODERN)


def _form(message: str) -> t.ElicitRequest:
    return t.ElicitRequest(params=t.ElicitRequestFormParams(message=message, requested_schema=SCHEMA))


def _round(ctx: Context[Any, Any]) -> int:
    return int(json.loads(ctx.request_state)["round"]) if ctx.request_state else 0


def build_server(name: str = "runaway") -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name)

    @server.tool(description="Asks `count` questions one after the other (0: forever), then says how many.")
    async def ask(ctx: Context[Any, Any], count: int = 0) -> Any:
        if not _modern(ctx):
            asked = 0
            while count == 0 or asked < count:
                rid = ctx.request_id
                await ctx.session.elicit_form(f"question {asked + 1}", SCHEMA, related_request_id=rid)
                asked += 1
            return f"asked {asked}"
        done = _round(ctx)
        if count and done >= count:
            return f"asked {done}"
        state = json.dumps({"round": done + 1})
        asking = {f"q{done}": _form(f"question {done + 1}")}
        return t.InputRequiredResult(input_requests=asking, request_state=state)

    @server.tool(description="Asks `count` questions at once (one round on 2026-07-28).")
    async def ask_at_once(ctx: Context[Any, Any], count: int) -> Any:
        if not _modern(ctx):
            await asyncio.gather(
                *(
                    ctx.session.elicit_form(f"question {i + 1}", SCHEMA, related_request_id=ctx.request_id)
                    for i in range(count)
                )
            )
            return f"asked {count}"
        if ctx.input_responses:
            return f"asked {len(ctx.input_responses)}"
        requests = {f"q{i}": _form(f"question {i + 1}") for i in range(count)}
        return t.InputRequiredResult(input_requests=requests, request_state="{}")

    @server.tool(description="2026-07-28: answers input-required with no question, forever.")
    async def stall(ctx: Context[Any, Any]) -> Any:
        return t.InputRequiredResult(request_state=json.dumps({"round": _round(ctx) + 1}))

    @server.tool(description="Sleeps `seconds`, then answers.")
    async def sleep(seconds: float = 20.0) -> str:
        await asyncio.sleep(seconds)
        return "slept"

    return server


if __name__ == "__main__":  # `python runaway.py`: over stdio
    build_server().run("stdio")
