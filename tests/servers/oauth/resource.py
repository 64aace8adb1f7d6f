"""An OAuth-protected MCP server for the sign-in tests: `python resource.py ISSUER [--name NAME]`.

An `MCPServer` over streamable HTTP at `http://127.0.0.1:<port>/mcp` (prints `PORT <n>` first) with the SDK's
server-side auth: protected resource metadata naming the authorization server ISSUER (provider.mjs), bearer
tokens checked by `JwtVerifier` (RFC 9068 JWTs: signature against the issuer's JWKS, `iss`, `aud` = this
server's URL, `exp`; PyJWT, which the SDK already depends on), 401 with `WWW-Authenticate` without a valid
token, `mcp:read` needed for everything. `write_note` needs `mcp:write` too: `StepUp` answers a call to it
with 403 `insufficient_scope` (the scopes to ask for in the challenge) before the MCP layer sees it.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import jwt
import mcp_types as t
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import AnyHttpUrl
from starlette.types import ASGIApp, Message, Receive, Scope, Send

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.servers.demo import NAME_SCHEMA, Asker, _NeedInput

READ = "mcp:read"
WRITE = "mcp:write"
WRITE_TOOLS = frozenset({"write_note"})
MAX_BODY = 1 << 20


def fetch_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


class JwtVerifier:
    """Checks the provider's JWT access tokens for one resource (the SDK's `TokenVerifier` protocol)."""

    def __init__(self, issuer: str, resource: str) -> None:
        metadata = fetch_json(f"{issuer}/.well-known/oauth-authorization-server")
        self.issuer = issuer
        self.resource = resource
        self.keys = jwt.PyJWKSet.from_dict(fetch_json(metadata["jwks_uri"]))

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            key = next(k for k in self.keys.keys if k.key_id == kid)
            claims = jwt.decode(
                token,
                key,
                algorithms=["RS256"],
                audience=self.resource,
                issuer=self.issuer,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except (jwt.PyJWTError, StopIteration):
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id", "")),
            scopes=str(claims.get("scope", "")).split(),
            expires_at=int(claims["exp"]),
            resource=self.resource,
            subject=str(claims["sub"]),
            claims={"iss": claims["iss"]},
        )


class StepUp:
    """ASGI: a `tools/call` of a tool in `WRITE_TOOLS` with a valid token that lacks `mcp:write` gets 403
    `insufficient_scope`; everything else goes on to `app` (which answers a missing token with 401)."""

    def __init__(self, app: ASGIApp, verifier: JwtVerifier, resource_metadata: str) -> None:
        self.app = app
        self.verifier = verifier
        self.resource_metadata = resource_metadata

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        received: list[Message] = []
        body = b""
        while True:
            message = await receive()
            received.append(message)
            body += message.get("body", b"")
            if message["type"] != "http.request" or not message.get("more_body") or len(body) > MAX_BODY:
                break
        if self._needs_write(body) and not await self._may_write(scope):
            await self._forbid(send)
            return

        async def replay() -> Message:
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)

    @staticmethod
    def _needs_write(body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        return (
            isinstance(message, dict)
            and message.get("method") == "tools/call"
            and isinstance(message.get("params"), dict)
            and message["params"].get("name") in WRITE_TOOLS
        )

    async def _may_write(self, scope: Scope) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        value = headers.get("authorization", "")
        if not value.lower().startswith("bearer "):
            return True  # no token: the auth middleware answers 401
        token = await self.verifier.verify_token(value[7:])
        return token is None or WRITE in token.scopes

    async def _forbid(self, send: Send) -> None:
        error = {"error": "insufficient_scope", "error_description": f"{WRITE} is required"}
        body = json.dumps(error).encode()
        challenge = (
            f'Bearer error="insufficient_scope", scope="{READ} {WRITE}", '
            f'resource_metadata="{self.resource_metadata}", error_description="{WRITE} is required"'
        )
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _caller() -> dict[str, Any]:
    token = get_access_token()
    if token is None:  # the auth middleware lets nothing through without one
        raise RuntimeError("no access token in the request context")
    return {"subject": token.subject, "client_id": token.client_id, "scopes": sorted(token.scopes)}


def build_server(name: str, verifier: JwtVerifier) -> MCPServer:
    # Strings, so AuthSettings keeps a path-less issuer without a trailing slash (issuers compare exactly).
    settings = AuthSettings.model_validate(
        {
            "issuer_url": verifier.issuer,
            "resource_server_url": verifier.resource,
            "required_scopes": [READ],
            "validate_token_resource": True,
        }
    )
    server = MCPServer(name, auth=settings, token_verifier=verifier)

    @server.tool(description="Who the access token says is calling, and its scopes.")
    async def whoami() -> str:
        return json.dumps(_caller(), sort_keys=True)

    @server.tool(description="Asks for a name (a form after the sign-in).")
    async def ask_name(ctx: Context) -> t.CallToolResult | t.InputRequiredResult:
        try:
            answer = await Asker(ctx).ask("name", "What is your name?", NAME_SCHEMA)
        except _NeedInput as need:
            return need.result
        text = json.dumps({"caller": _caller(), "answer": answer}, sort_keys=True)
        return t.CallToolResult(content=[t.TextContent(type="text", text=text)])

    @server.tool(description="Saves a note; needs the mcp:write scope.")
    async def write_note(text: str) -> str:
        caller = _caller()
        if WRITE not in caller["scopes"]:  # StepUp answers 403 first; this guards the guard
            raise PermissionError(f"{WRITE} is required")
        return json.dumps({"saved": text, "caller": caller}, sort_keys=True)

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("issuer")
    parser.add_argument("--name", default="protected")
    args = parser.parse_args()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn serves: the port is usable once printed
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    verifier = JwtVerifier(args.issuer, url)
    server = build_server(args.name, verifier)
    metadata = str(build_resource_metadata_url(AnyHttpUrl(url)))
    app = StepUp(server.streamable_http_app(host="127.0.0.1"), verifier, metadata)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
