"""An MCP endpoint whose OAuth discovery, registration or token endpoint the SDK must refuse, one case a path.

`python oauth_refused.py` prints `PORT <n>`, then serves `http://127.0.0.1:<n>/<case>/mcp`, which always
answers 401 pointing at its protected resource metadata (`/<case>/prm`), which names the authorization server
`/<case>/as` (its metadata at `/.well-known/oauth-authorization-server/<case>/as`). Each case breaks one step:

- `issuer`: the authorization server's metadata names another issuer (RFC 8414 §3.3).
- `resource`: the protected resource metadata names another resource (RFC 9728 §3).
- `prm-500`: the protected resource metadata answers HTTP 500.
- `register`: dynamic registration answers 400 with an error body.
- `register-garbage`: dynamic registration answers 201 with a body that is not JSON.
- `token`: authorization redirects back at once; the token endpoint answers 400 `invalid_grant`.

Nothing here is a real authorization server: each answer is the one a broken or hostile server sends.
"""

from __future__ import annotations

import json
import socket
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CASES = ("issuer", "resource", "prm-500", "register", "register-garbage", "token")
SECRET = "REFUSEDSECRET"
"""In every error body: it must never reach the person's screen, a log or an exception."""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def route(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        well_known = parts[:2] == [".well-known", "oauth-authorization-server"]
        case = parts[2] if well_known and len(parts) > 2 else parts[0]
        rest = parts[1:] if not well_known else ["asm"]
        if case not in CASES:
            return self.answer(404, {"error": "not_found"})
        root = f"{self.base()}/{case}"
        step = rest[0] if rest else ""
        if step == "mcp":
            challenge = f'Bearer error="invalid_token", resource_metadata="{root}/prm"'
            return self.answer(401, {"error": "invalid_token"}, {"WWW-Authenticate": challenge})
        if step == "prm":
            if case == "prm-500":
                return self.answer(500, {"error": f"server_error {SECRET}"})
            resource = "https://elsewhere.example/mcp" if case == "resource" else f"{root}/mcp"
            return self.answer(200, {"resource": resource, "authorization_servers": [f"{root}/as"]})
        if step == "asm":
            issuer = f"{self.base()}/impostor" if case == "issuer" else f"{root}/as"
            return self.answer(
                200,
                {
                    "issuer": issuer,
                    "authorization_endpoint": f"{root}/authorize",
                    "token_endpoint": f"{root}/token",
                    "registration_endpoint": f"{root}/register",
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                },
            )
        if step == "register":
            if case == "register":
                return self.answer(400, {"error": "invalid_client_metadata", "error_description": SECRET})
            if case == "register-garbage":
                return self.answer(201, f"<html>{SECRET}</html>")
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            return self.answer(201, {**body, "client_id": "refused-client"})
        if step == "authorize":
            query = dict(urllib.parse.parse_qsl(url.query))
            back = f"{query['redirect_uri']}?code={SECRET}code&state={urllib.parse.quote(query['state'])}"
            self.send_response(302)
            self.send_header("Location", back)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if step == "token":
            return self.answer(400, {"error": "invalid_grant", "error_description": f"no {SECRET}"})
        return self.answer(404, {"error": "not_found"})

    do_GET = do_POST = route


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"PORT {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
