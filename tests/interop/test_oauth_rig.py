"""The sign-in rig proven with the SDK alone: its `OAuthClientProvider` signs in to the protected MCP server
(tests/servers/oauth/resource.py) at the real authorization server (provider.mjs), a real Chromium typing the
test account into the provider's login page and following the redirect to a loopback this test runs.

No mcp_widgets code runs here: when these pass, a failing sign-in test of ours is ours. The rig must also
refuse what it should (no token, a token for another resource, a token without the scope, a forged one).
"""

from __future__ import annotations

import concurrent.futures
import json
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import jwt
import mcp_types as t
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from tests.servers.oauth.rig import Browser, Loopback, authorization_server, protected_server

pytestmark = pytest.mark.browser  # its own Playwright: runs after the tests that start event loops

T = TypeVar("T")
SHORT_TTL = 3
"""Seconds an access token lives at the short-lived provider (the refresh test waits it out)."""


class MemoryStorage:
    """The SDK's `TokenStorage` protocol, in memory; the tests read what was stored."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class SdkClient:
    """An MCP client on the SDK's own OAuth client, run on a thread of its own (Playwright's sync API keeps
    the main thread's event loop). Authorization addresses it would open arrive on `opened`; the main thread
    plays the browser."""

    def __init__(self, url: str, loopback: Loopback, storage: MemoryStorage | None = None) -> None:
        self.url = url
        self.storage = storage or MemoryStorage()
        self.opened: queue.Queue[str] = queue.Queue()
        self.redirects: list[dict[str, str]] = []
        """The query of every redirect that came back."""
        self.loopback = loopback
        metadata = OAuthClientMetadata(
            client_name="rig test (SDK)",
            redirect_uris=[loopback.uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        )
        self.provider = OAuthClientProvider(
            url, metadata, self.storage, redirect_handler=self._redirect, callback_handler=self._callback
        )

    async def _redirect(self, authorization_url: str) -> None:
        self.opened.put(authorization_url)

    async def _callback(self) -> AuthorizationCodeResult:
        query = await anyio.to_thread.run_sync(self.loopback.wait)
        self.redirects.append(query)
        if "code" not in query:
            raise RuntimeError(f"the authorization server answered {query.get('error')}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    def next_address(self, running: concurrent.futures.Future[Any], timeout: float = 30) -> str:
        """The next authorization address the client opens; if the client fails first, its error."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                return self.opened.get(timeout=0.1)
            except queue.Empty:
                if running.done():
                    running.result()
                    raise AssertionError("the client ended, opening no authorization address") from None
        raise TimeoutError("the client opened no authorization address")

    def start(self, work: Callable[[ClientSession], Awaitable[T]]) -> concurrent.futures.Future[T]:
        """Connect, initialize and run `work(session)` on a thread; the future holds what it returned."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        async def main() -> T:
            async with (
                httpx2.AsyncClient(auth=self.provider, timeout=30) as http,
                streamable_http_client(self.url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await work(session)

        def run() -> None:
            try:
                future.set_result(anyio.run(main))
            except BaseException as exc:
                future.set_exception(exc)

        threading.Thread(target=run, daemon=True).start()
        return future


def text_of(result: t.CallToolResult) -> Any:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, t.TextContent)
    return json.loads(block.text)


def call(name: str, args: dict[str, Any] | None = None) -> Callable[[ClientSession], Awaitable[Any]]:
    async def work(session: ClientSession) -> Any:
        return text_of(await session.call_tool(name, args or {}))

    return work


def raw_post(url: str, token: str | None, tool: str | None = None) -> httpx2.Response:
    """One POST with the given bearer token: `initialize`, or a `tools/call` of `tool` (the auth layers
    answer that one before any MCP session would be needed)."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if tool is None:
        client = {"name": "raw", "version": "0"}
        params: dict[str, Any] = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    else:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
    return httpx2.post(url, json=body, headers=headers, timeout=10)


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    listener = Loopback()
    try:
        yield listener
    finally:
        listener.close()


def sign_in_and(client: SdkClient, browser: Browser, work: Callable[[ClientSession], Awaitable[T]]) -> T:
    """Run `work` through the client, signing in on the provider's page once it asks."""
    future = client.start(work)
    landing = browser.sign_in(client.next_address(future), context=browser.fresh())
    assert landing.url.startswith(client.loopback.uri)
    assert "You may close this tab" in landing.text
    return future.result(timeout=30)


def test_no_token_is_401_naming_the_authorization_server(issuer: str, mcp_url: str) -> None:
    response = raw_post(mcp_url, None)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and "resource_metadata=" in challenge
    metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
    metadata = httpx2.get(metadata_url, timeout=10).json()
    assert metadata["resource"] == mcp_url
    assert metadata["authorization_servers"] == [issuer]
    as_metadata = httpx2.get(f"{issuer}/.well-known/oauth-authorization-server", timeout=10).json()
    assert as_metadata["issuer"] == issuer
    assert as_metadata["code_challenge_methods_supported"] == ["S256"]
    assert as_metadata["registration_endpoint"]
    assert as_metadata["authorization_response_iss_parameter_supported"] is True


def test_authorization_server_policy(issuer: str, mcp_url: str) -> None:
    """PKCE S256 is required, a registered loopback redirect matches on any port (RFC 8252), only loopback
    http redirects register for a native client, and the resource must be one the server knows."""
    registered = httpx2.post(
        f"{issuer}/reg",
        json={
            "application_type": "native",
            "redirect_uris": ["http://127.0.0.1:4000/callback"],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "scope": "mcp:read",
        },
        timeout=10,
    )
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]

    def authorize(**extra: str) -> dict[str, list[str]]:
        params = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": "http://127.0.0.1:5555/callback",  # another port than registered
            "state": "s" * 16,
            "scope": "mcp:read",
            "resource": mcp_url,
            **extra,
        }
        response = httpx2.get(f"{issuer}/auth", params=params, timeout=10)
        assert response.status_code in (302, 303), response.text
        location = response.headers["location"]
        return parse_qs(urlsplit(location).query) | {"_at": [location]}

    no_pkce = authorize()
    assert no_pkce["_at"][0].startswith("http://127.0.0.1:5555/callback?")
    assert no_pkce["error"] == ["invalid_request"] and "PKCE" in no_pkce["error_description"][0]
    plain = authorize(code_challenge="c" * 43, code_challenge_method="plain")
    assert plain["error"] == ["invalid_request"]
    with_pkce = authorize(code_challenge="c" * 43, code_challenge_method="S256")
    assert "error" not in with_pkce and "/interaction/" in with_pkce["_at"][0]  # on to the login page
    elsewhere = authorize(
        code_challenge="c" * 43, code_challenge_method="S256", resource="https://example.com/"
    )
    assert elsewhere["error"] == ["invalid_target"]
    web_redirect = httpx2.post(
        f"{issuer}/reg",
        json={"application_type": "native", "redirect_uris": ["http://example.com/callback"]},
        timeout=10,
    )
    assert web_redirect.status_code == 400


def test_sdk_signs_in_through_the_login_page(mcp_url: str, browser: Browser, loopback: Loopback) -> None:
    client = SdkClient(mcp_url, loopback)
    caller = sign_in_and(client, browser, call("whoami"))
    assert caller["subject"] == "ada"
    assert caller["scopes"] == ["mcp:read"]
    assert client.storage.client_info is not None
    assert caller["client_id"] == client.storage.client_info.client_id
    # The token is the provider's JWT for exactly this resource (RFC 8707), and a refresh token came with it.
    tokens = client.storage.tokens
    assert tokens is not None and tokens.refresh_token
    claims = jwt.decode(tokens.access_token, options={"verify_signature": False})
    assert claims["aud"] == mcp_url
    assert claims["scope"] == "mcp:read"
    # A bearer the auth layer takes: the same token works without the SDK.
    assert raw_post(mcp_url, tokens.access_token).status_code == 200
    # Not for the write tool: 403 insufficient_scope, naming the scopes to ask for.
    forbidden = raw_post(mcp_url, tokens.access_token, tool="write_note")
    assert forbidden.status_code == 403
    challenge = forbidden.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="mcp:read mcp:write"' in challenge


def test_wrong_password_gets_no_code(mcp_url: str, browser: Browser, loopback: Loopback) -> None:
    client = SdkClient(mcp_url, loopback)
    future = client.start(call("whoami"))
    page = browser.fresh().new_page()
    page.goto(client.next_address(future))
    page.get_by_label("User name").fill("ada")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("alert").wait_for()
    assert "Wrong user name or password" in page.get_by_role("alert").inner_text()
    # Cancel on the provider's page sends the person back with access_denied: the SDK's flow fails.
    page.get_by_role("button", name="Cancel").click()
    page.wait_for_url(lambda url: url.startswith(loopback.uri))
    with pytest.raises(BaseException):  # noqa: B017 (the SDK's flow error, wrapped in task groups)
        future.result(timeout=30)
    assert [r.get("error") for r in client.redirects] == ["access_denied"]
    assert all("code" not in r for r in client.redirects)


def test_token_for_another_resource_is_refused(issuer: str, mcp_url: str, browser: Browser) -> None:
    # Sign in to a second protected server of the same authorization server; its token is no good here.
    with protected_server(issuer, name="other") as other_url, Loopback() as loopback:
        client = SdkClient(other_url, loopback)
        assert sign_in_and(client, browser, call("whoami"))["subject"] == "ada"
        assert client.storage.tokens is not None
        token = client.storage.tokens.access_token
        assert raw_post(other_url, token).status_code == 200
    assert jwt.decode(token, options={"verify_signature": False})["aud"] == other_url
    refused = raw_post(mcp_url, token)
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]


def test_forged_and_expired_tokens_are_refused(issuer: str, mcp_url: str) -> None:
    now = int(time.time())
    claims = {"iss": issuer, "aud": mcp_url, "sub": "ada", "scope": "mcp:read mcp:write", "client_id": "x"}
    forged = jwt.encode({**claims, "exp": now + 300}, "not the provider's key " * 2, algorithm="HS256")
    assert raw_post(mcp_url, forged).status_code == 401
    unsigned = jwt.encode({**claims, "exp": now + 300}, None, algorithm="none")
    assert raw_post(mcp_url, unsigned).status_code == 401


def test_step_up_to_write(mcp_url: str, browser: Browser, loopback: Loopback) -> None:
    client = SdkClient(mcp_url, loopback)
    context = browser.fresh()  # one browser session: the second authorization needs no password

    async def read_then_write(session: ClientSession) -> tuple[Any, Any]:
        return text_of(await session.call_tool("whoami", {})), text_of(
            await session.call_tool("write_note", {"text": "hello"})
        )

    future = client.start(read_then_write)
    assert browser.sign_in(client.next_address(future), context=context).url.startswith(loopback.uri)
    # The write tool answers 403 insufficient_scope; the SDK asks again for mcp:read mcp:write.
    second = client.next_address(future)
    assert {"mcp:read", "mcp:write"} <= set(parse_qs(urlsplit(second).query)["scope"][0].split())
    assert browser.sign_in(second, context=context).url.startswith(loopback.uri)
    before, written = future.result(timeout=30)
    assert before["scopes"] == ["mcp:read"]
    assert written["saved"] == "hello"
    assert written["caller"]["scopes"] == ["mcp:read", "mcp:write"]


def test_refresh_after_the_short_ttl_needs_no_login(browser: Browser, loopback: Loopback) -> None:
    with authorization_server(access_ttl=SHORT_TTL) as short_issuer, protected_server(short_issuer) as url:
        client = SdkClient(url, loopback)

        async def twice(session: ClientSession) -> tuple[Any, str, Any]:
            first = text_of(await session.call_tool("whoami", {}))
            assert client.storage.tokens is not None
            token = client.storage.tokens.access_token
            await anyio.sleep(SHORT_TTL + 1)  # waiting out the token's life, not timing anything
            return first, token, text_of(await session.call_tool("whoami", {}))

        future = client.start(twice)
        browser.sign_in(client.next_address(future), context=browser.fresh())
        first, old_token, second = future.result(timeout=60)
        assert client.opened.empty(), "the refresh opened the login page again"
        assert first["subject"] == second["subject"] == "ada"
        assert client.storage.tokens is not None
        assert client.storage.tokens.access_token != old_token
        assert raw_post(url, old_token).status_code == 401  # the old one really expired
