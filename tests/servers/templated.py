"""A server with a resource template (as the reference "everything" server's): `python templated.py` runs it
over stdio. Reading `demo://resource/dynamic/text/<n>` gives a text naming n; any other id fails."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TEMPLATE = "demo://resource/dynamic/text/{resourceId}"


def build_server(name: str = "templated") -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(name)

    @server.resource(TEMPLATE, description="A text made for the id read.")
    def dynamic(resourceId: str) -> str:
        if not resourceId.isdigit():
            raise ValueError(f"no resource {resourceId}")
        return f"dynamic text {resourceId}"

    return server


if __name__ == "__main__":
    build_server().run("stdio")
