"""A raw streamable HTTP server (2025-11-25) quoting a typed answer where no body is: in headers and paths.

Its tool `ask` asks for a name (an SSE stream carrying `elicitation/create`) and answers the POSTed answer
with `202` and the name in an `Mcp-Echo` header and in `WWW-Authenticate`'s `error_description`. Its tool
`again`, called after, is redirected (307, the same origin) to `/mcp/<name>`, where it is answered. Prints
"PORT <n>" once it listens.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, unquote

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
TOOLS = [
    {"name": "ask", "description": "Asks for a name.", "inputSchema": {"type": "object"}},
    {"name": "again", "description": "Redirected to a path naming it.", "inputSchema": {"type": "object"}},
]
_answered = threading.Condition()
_names: list[str] = []


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps({"jsonrpc": "2.0", **body}).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Mcp-Session-Id", "session-0123456789")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._json(405)

    def do_DELETE(self) -> None:
        self._json(200)

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        method, rid = message.get("method"), message.get("id")
        if method is None:  # our question's answer: the name comes back in headers
            name = str(((message.get("result") or {}).get("content") or {}).get("name", ""))
            with _answered:
                _names.append(name)
                _answered.notify_all()
            challenge = f'Bearer error="invalid_token", error_description="no user {name}"'
            self._json(202, headers={"Mcp-Echo": f"hello {name}", "WWW-Authenticate": challenge})
        elif rid is None:
            self._json(202)
        elif method == "initialize":
            info = {"name": "echo-http", "version": "0"}
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
            self._json(200, {"id": rid, "result": result})
        elif method == "tools/list":
            self._json(200, {"id": rid, "result": {"tools": TOOLS}})
        elif method == "ping":
            self._json(200, {"id": rid, "result": {}})
        elif method == "tools/call" and message["params"]["name"] == "ask":
            self._ask(rid)
        elif method == "tools/call" and self.path == "/mcp" and _names:
            self.send_response(307)
            self.send_header("Location", f"/mcp/{quote(_names[-1])}")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif method == "tools/call":
            text = f"reached {unquote(self.path)}"
            self._json(200, {"id": rid, "result": {"content": [{"type": "text", "text": text}]}})
        else:
            self._json(200, {"id": rid, "error": {"code": -32601, "message": f"no {method}"}})

    def _ask(self, rid: Any) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", "session-0123456789")
        self.end_headers()
        before = len(_names)
        question = {"mode": "form", "message": "Who are you?", "requestedSchema": SCHEMA}
        self._event({"id": "q1", "method": "elicitation/create", "params": question})
        with _answered:
            _answered.wait_for(lambda: len(_names) > before, timeout=30)
        self._event({"id": rid, "result": {"content": [{"type": "text", "text": "thanks"}]}})
        self.close_connection = True

    def _event(self, body: dict[str, Any]) -> None:
        self.wfile.write(f"event: message\ndata: {json.dumps({'jsonrpc': '2.0', **body})}\n\n".encode())
        self.wfile.flush()


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
