"""An OAuth-protected MCP server with its own authorization server (the SDK's server-side auth), for tests.

`python oauth_quick.py [TTL]` prints `PORT <n>`, then serves `/mcp` (bearer tokens required), the protected
resource and authorization server metadata, `/register` (dynamic registration), `/authorize` and `/token`. Its
authorization endpoint approves at once (no login page: the test's stand-in browser is the person) and
redirects to the client's redirect URI with a code (with an `access_denied` error when the scope "deny" is
asked for: the person said no there). Every code and token starts with a canary prefix
(`CANARY_PREFIX`) so tests can look for them where they must never be. `whoami` says which scopes the
call's token has. Access tokens live TTL seconds (default 3600): a short one makes the client refresh.
"""

from __future__ import annotations

import secrets
import socket
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

CANARY_PREFIX = "CANARYSECRET"
"""Every code, access token and refresh token this server issues starts with it."""


def _secret(kind: str) -> str:
    return f"{CANARY_PREFIX}{kind}{secrets.token_hex(12)}"


class Provider:
    """An in-memory authorization server that approves every request."""

    def __init__(self, ttl: int = 3600) -> None:
        self.ttl = ttl
        self.clients: dict[str, Any] = {}
        self.codes: dict[str, Any] = {}
        self.access: dict[str, Any] = {}
        self.refresh: dict[str, Any] = {}

    async def get_client(self, client_id: str) -> Any:
        return self.clients.get(client_id)

    async def register_client(self, client_info: Any) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: Any, params: Any) -> str:
        from mcp.server.auth.provider import AuthorizationCode, AuthorizeError, construct_redirect_uri

        if "deny" in (params.scopes or ()):  # the person says no on the authorization server's page
            raise AuthorizeError("access_denied", "the person declined")
        code = AuthorizationCode(
            code=_secret("code"),
            scopes=params.scopes or ["read"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(self, client: Any, authorization_code: str) -> Any:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> Any:
        from mcp.server.auth.provider import AccessToken, RefreshToken
        from mcp.shared.auth import OAuthToken

        access, refresh = _secret("access"), _secret("refresh")
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.ttl,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.ttl,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )

    async def exchange_authorization_code(self, client: Any, authorization_code: Any) -> Any:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: Any, refresh_token: str) -> Any:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: Any, refresh_token: Any, scopes: list[str]) -> Any:
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> Any:
        return self.access.get(token)

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)


def build(port: int, ttl: int = 3600) -> Any:
    from mcp.server.auth.middleware.auth_context import get_access_token
    from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
    from mcp.server.mcpserver import MCPServer

    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "oauth-test",
        auth_server_provider=Provider(ttl),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=["read", "write", "deny"]
            ),
            required_scopes=["read"],
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """The scopes of the call's token."""
        token = get_access_token()
        return " ".join(token.scopes) if token is not None else "nobody"

    return server


def main() -> None:
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    ttl = int(sys.argv[1]) if len(sys.argv) > 1 else 3600
    app = build(port, ttl).streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {port}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
