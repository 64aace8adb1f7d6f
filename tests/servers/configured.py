"""A server that reports what it was started with: its cwd, and digests of the `CFG_TOKEN` environment
variable and the `X-Cfg-Token` header (digests, so the values themselves never come back).

`python configured.py stdio` or `python configured.py http` (prints `PORT <n>` first).
"""

from __future__ import annotations

import hashlib
import os
import socket
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer


def digest(value: str | None) -> str | None:
    return hashlib.sha256(value.encode()).hexdigest()[:16] if value is not None else None


def build() -> MCPServer:
    server = MCPServer("configured")

    @server.tool()
    def seen(ctx: Context) -> dict[str, Any]:
        """What this server was started with."""
        request = getattr(ctx.request_context, "request", None)
        header = request.headers.get("x-cfg-token") if request is not None else None
        return {"cwd": os.getcwd(), "env": digest(os.environ.get("CFG_TOKEN")), "header": digest(header)}

    return server


def main() -> None:
    server = build()
    if sys.argv[1] == "stdio":
        server.run("stdio")
        return
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(server.streamable_http_app(host="127.0.0.1"), log_level="warning")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
