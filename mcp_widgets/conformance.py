"""The client command for the official MCP conformance suite (`@modelcontextprotocol/conformance`).

    conformance client --command "python -m mcp_widgets.conformance" --scenario initialize

The suite starts a test server, appends its URL to the command and names the scenario in
`MCP_CONFORMANCE_SCENARIO`. This command connects with `mcp_widgets.connect` over streamable HTTP, lists the
tools, calls each one with the arguments its scenario expects, and answers every elicitation through a real
`ElicitationForm` that a handler accepts untouched: what the server receives is exactly what the form
pre-filled (its defaults). It runs without a kernel; forms are built but never displayed. For the `auth/*`
scenarios it passes an OAuth provider as `connect(auth=...)` (credentials from `MCP_CONFORMANCE_CONTEXT`);
with `--interactive` it signs in the way a notebook does instead: `connect` without `auth=` makes the
sign-in card, a handler consents on it (`sign_in_and_follow`), and a stand-in browser (httpx) follows the
card's `authorization_url` to the loopback redirect.
Exit status: 0 when every call succeeded, 1 otherwise (the suite's checks are the real verdict).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

import mcp_types

from .client import Server, connect
from .core.outcome import Action, Reason
from .widgets import ElicitationForm

__all__ = ["accept_untouched", "arguments_for", "main", "oauth_for", "run", "sign_in_and_follow"]

log = logging.getLogger("mcp_widgets.conformance")

KNOWN_ARGUMENTS: dict[str, dict[str, Any]] = {
    # tools_call: the server checks that a + b comes back.
    "add_numbers": {"a": 5, "b": 3},
}
"""Arguments for the tools the suite's scenarios define; other tools get values built from their schema."""

_SAMPLE: dict[str, Any] = {"string": "test", "integer": 1, "number": 1, "boolean": True}


async def accept_untouched(card: Any) -> None:
    """Accept a form exactly as it was pre-filled; decline anything that is not a form."""
    if not isinstance(card, ElicitationForm):
        card.finish(Action.DECLINE, reason=Reason.HANDLER, by="conformance", note="not a form")
        return
    if not card.accept():
        # The defaults alone do not make a valid answer: say so (field names only), and decline.
        problems = ", ".join(sorted(card.errors)) or "the form"
        card.finish(Action.DECLINE, reason=Reason.HANDLER, by="conformance", note=f"invalid: {problems}")


def follow(authorization_url: str) -> None:
    """A stand-in browser: open the authorization address and follow its redirects (to the loopback).

    urllib, not httpx: it logs nothing, and the last address carries the authorization code.
    """
    import urllib.request

    try:
        with urllib.request.urlopen(authorization_url, timeout=30) as page:
            page.read()
    except Exception as exc:
        log.error("the stand-in browser failed: %s", type(exc).__name__)


async def sign_in_and_follow(card: Any) -> None:
    """Consent on a sign-in card, and a stand-in browser follows its address; forms as `accept_untouched`."""
    if card.kind != "signin":
        await accept_untouched(card)
        return
    if card.accept():
        threading.Thread(target=follow, args=(card.authorization_url,), daemon=True).start()


def arguments_for(tool: mcp_types.Tool) -> dict[str, Any]:
    """The arguments to call `tool` with: the scenario's own, else a sample value per required property."""
    if tool.name in KNOWN_ARGUMENTS:
        return dict(KNOWN_ARGUMENTS[tool.name])
    schema: Mapping[str, Any] = tool.input_schema or {}
    properties: Mapping[str, Any] = schema.get("properties") or {}
    args: dict[str, Any] = {}
    for name in schema.get("required") or ():
        prop: Mapping[str, Any] = properties.get(name) or {}
        if "default" in prop:
            args[name] = prop["default"]
        elif prop.get("enum"):
            args[name] = prop["enum"][0]
        else:
            args[name] = _SAMPLE.get(prop.get("type", ""), "test")
    return args


REDIRECT_URI = "http://localhost:3000/callback"
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
"""For the suite's `auth/*` scenarios: its authorization server approves at once and redirects here."""


class _MemoryStorage:
    """Tokens and client registration for one run (the SDK's TokenStorage protocol)."""

    def __init__(self) -> None:
        self.tokens: Any = None
        self.client_info: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client_info

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info


def oauth_for(url: str, context: Mapping[str, Any] | None = None) -> Any:
    """An OAuth provider (an `httpx2.Auth` for `connect(auth=...)`) that completes the suite's test flows.

    Authorization code: the "browser" step fetches the authorization URL and reads the code from the
    redirect, as the suite's own example client does. Client credentials (secret or signed JWT) and a
    pre-registered client come from `context` (the suite's `MCP_CONFORMANCE_CONTEXT`).
    """
    import httpx2
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata
    from pydantic import AnyUrl

    context = context or {}
    storage = _MemoryStorage()
    kind = context.get("name")
    if kind == "auth/client-credentials-basic":
        return ClientCredentialsOAuthProvider(
            url, storage, context["client_id"], context["client_secret"], "client_secret_basic"
        )
    if kind == "auth/client-credentials-jwt":
        signer = SignedJWTParameters(
            issuer=context["client_id"],
            subject=context["client_id"],
            signing_key=context["private_key_pem"],
            signing_algorithm=context.get("signing_algorithm") or "ES256",
        )
        return PrivateKeyJWTOAuthProvider(
            url, storage, context["client_id"], signer.create_assertion_provider()
        )
    if kind == "auth/pre-registration":
        storage.client_info = OAuthClientInformationFull(
            client_id=context["client_id"],
            client_secret=context["client_secret"],
            redirect_uris=[AnyUrl(REDIRECT_URI)],
            token_endpoint_auth_method="client_secret_basic",
        )

    answer: dict[str, str] = {}

    async def redirect(authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=30.0) as http:
            response = await http.get(authorization_url)
        location = response.headers.get("location")
        if not location:
            raise RuntimeError(f"the authorization server did not redirect (HTTP {response.status_code})")
        query = parse_qs(urlsplit(location).query)
        answer.clear()
        answer.update({k: v[0] for k, v in query.items() if k in ("code", "state", "iss") and v})
        if "code" not in answer:
            raise RuntimeError("the authorization redirect carries no code")

    async def callback() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(**answer)

    metadata = OAuthClientMetadata(
        client_name="mcp-widgets conformance client",
        redirect_uris=[AnyUrl(REDIRECT_URI)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )
    return OAuthClientProvider(
        url,
        metadata,
        storage,
        redirect_handler=redirect,
        callback_handler=callback,
        client_metadata_url=CLIENT_METADATA_URL,
    )


INTERACTIVE_SKIPS = ("auth/client-credentials-basic", "auth/client-credentials-jwt")
"""Scenarios with no person in them: `--interactive` runs them with the non-interactive provider."""


async def run(url: str, scenario: str = "", *, interactive: bool = False) -> list[mcp_types.CallToolResult]:
    """Connect to `url`, list the tools and call each once; returns the results in listing order.

    `interactive`: sign in through the sign-in card (see the module's docstring) for `auth/*` scenarios.
    """
    results: list[mcp_types.CallToolResult] = []
    auth = None
    options: dict[str, Any] = {}
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if scenario.startswith("auth/") and (not interactive or scenario in INTERACTIVE_SKIPS):
        auth = oauth_for(url, context)
    elif scenario.startswith("auth/"):
        if scenario == "auth/pre-registration":
            options["token_store"] = _pre_registered(context)
        else:
            options["client_metadata_url"] = CLIENT_METADATA_URL
    handler = sign_in_and_follow if interactive else accept_untouched
    server: Server
    async with connect(
        url, name="conformance", handler=handler, transport="http", auth=auth, **options
    ) as server:
        log.info("connected to %s (protocol %s), scenario %r", url, server.protocol_version, scenario)
        tools = await server.list_tools()
        for tool in tools:
            result = await server.call_tool(tool.name, arguments_for(tool))
            log.info("called %s: %s", tool.name, "error" if result.is_error else "ok")
            results.append(result)
    return results


def _pre_registered(context: Mapping[str, Any]) -> Any:
    """The suite's pre-registered client has a secret, which `client_id=` (a public client) cannot send: a
    store that holds the registration, which our provider then uses as its client."""
    from mcp.shared.auth import OAuthClientInformationFull
    from pydantic import AnyUrl

    storage = _MemoryStorage()
    storage.client_info = OAuthClientInformationFull(
        client_id=context["client_id"],
        client_secret=context["client_secret"],
        redirect_uris=[AnyUrl(REDIRECT_URI)],
        token_endpoint_auth_method="client_secret_basic",
    )
    return storage


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m mcp_widgets.conformance [--verbose] [--interactive] URL`; the scenario comes from the
    environment."""
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in args
    interactive = "--interactive" in args
    args = [a for a in args if a not in ("--verbose", "--interactive")]
    if not args:
        usage = "usage: python -m mcp_widgets.conformance [--verbose] [--interactive] SERVER_URL"
        print(usage, file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, stream=sys.stderr)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        results = asyncio.run(run(args[-1], scenario, interactive=interactive))
    except Exception as exc:
        log.error("scenario %r failed: %s: %s", scenario, type(exc).__name__, exc)
        return 1
    return 1 if any(r.is_error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
