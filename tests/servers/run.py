"""Run the demo server: `python run.py stdio|http|sse [name]` (http and sse print `PORT <n>` first)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.servers.demo import build_server


def main() -> None:
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    name = sys.argv[2] if len(sys.argv) > 2 else "demo"
    server = build_server(name)
    if transport == "stdio":
        server.run("stdio")
        return
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn serves: the port is usable once printed
    app = (
        server.sse_app(host="127.0.0.1")
        if transport == "sse"
        else server.streamable_http_app(host="127.0.0.1")
    )
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
