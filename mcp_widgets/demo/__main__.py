"""`python -m mcp_widgets.demo [--http [--host H] [--port N]] [--sign-in-port N] [--sign-in-url URL]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._server import DemoServer, create_server
from ._signin import DEFAULT_SIGN_IN_PORT


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m mcp_widgets.demo",
        description="The mcp-widgets demo MCP server (stdio unless --http).",
    )
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP interface (default: 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8000, help="HTTP port, 0 for any free port (default: 8000)"
    )
    parser.add_argument(
        "--sign-in-port",
        type=int,
        default=DEFAULT_SIGN_IN_PORT,
        help="port of the local sign-in page; forward it when the browser runs on another machine "
        f"(default: {DEFAULT_SIGN_IN_PORT}; 0: any free port)",
    )
    parser.add_argument("--sign-in-host", default="127.0.0.1", help="interface of the sign-in page")
    parser.add_argument(
        "--sign-in-url",
        default=None,
        help="public https base URL of the sign-in page, when reached through a proxy",
    )
    parser.add_argument("--name", default="mcp-widgets-demo", help="the name the server gives itself")
    args = parser.parse_args(argv)

    server = create_server(
        args.name,
        sign_in_port=args.sign_in_port,
        sign_in_host=args.sign_in_host,
        sign_in_url=args.sign_in_url,
    )
    if not args.http:
        server.run("stdio")
        return
    _serve_http(server, args.host, args.port)


def _serve_http(server: DemoServer, host: str, port: int) -> None:
    import socket

    import anyio
    import uvicorn

    # Bind first, so `--port 0` can report the port it got (tests read this line from stderr).
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)  # connections that come before uvicorn starts wait in the backlog instead of failing
    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    print(
        f"mcp-widgets demo: streamable HTTP on http://{shown}:{bound_port}/mcp",
        file=sys.stderr,
        flush=True,
    )
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
