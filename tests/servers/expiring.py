"""An `MCPServer` (2026-07-28) whose input-required rounds expire after a few seconds: the SDK's own
`RequestStateSecurity` with a short `ttl`, so a late answer gets the SDK's refusal ("Invalid or expired
requestState", -32602), exactly as a default server does after 10 minutes.

    python expiring.py [TTL_SECONDS]        (stdio; default 2)
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.request_state import RequestStateSecurity
from pydantic import BaseModel, Field


class Booking(BaseModel):
    name: str = Field(title="Name")
    guests: int = Field(default=2, ge=1, le=12, title="Guests")


async def ask_booking() -> Elicit[Booking]:
    return Elicit("Who is the table for?", Booking)


def build_server(ttl: float = 2.0) -> MCPServer:
    server = MCPServer("expiring", request_state_security=RequestStateSecurity.ephemeral(ttl=ttl))

    @server.tool(description="Asks who the table is for (a round whose request state lives `ttl` seconds).")
    async def book(booking: Annotated[Booking, Resolve(ask_booking)]) -> str:
        return json.dumps(booking.model_dump())

    return server


if __name__ == "__main__":
    build_server(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0).run("stdio")
