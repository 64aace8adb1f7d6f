"""Start the sign-in rig and play the person's browser in it.

`authorization_server()` runs provider.mjs (Node 22 and tests/interop/node_modules, see
scripts/conformance-deps.sh) and yields its issuer; `protected_server(issuer)` runs resource.py and yields
its MCP URL. `Browser` is Playwright driving Debian's Chromium (as tests/browser does), kept to loopback
addresses: `sign_in(url)` opens an authorization address, types the test account into the provider's login
page and returns the address the browser ended on. `Loopback` is a redirect listener for the tests that
drive the SDK's own OAuth client (whose redirect stays the same across its sign-ins). Playwright's sync
API: use `Browser` from the main thread.
"""

from __future__ import annotations

import contextlib
import http.server
import queue
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS
from tests.interop.nodejs import NODE_MODULES, node_or_skip
from tests.servers.launch import serving

HERE = Path(__file__).resolve().parent
PROVIDER = HERE / "provider.mjs"
RESOURCE = HERE / "resource.py"
OIDC_PROVIDER = NODE_MODULES / "oidc-provider" / "package.json"
USER = "ada"
PASSWORD = "correct horse battery staple"
"""The test account provider.mjs checks the login page against."""
BROWSER_MS = 15_000
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})


@contextlib.contextmanager
def authorization_server(*, access_ttl: int = 300) -> Iterator[str]:
    """provider.mjs on a free port; yields its issuer URL. Access tokens live `access_ttl` seconds."""
    node = node_or_skip(OIDC_PROVIDER)
    argv = [node, str(PROVIDER), "--access-ttl", str(access_ttl), "--user", USER, "--password", PASSWORD]
    with serving(argv, "the authorization server") as (port, _proc):
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def protected_server(issuer: str, name: str = "protected") -> Iterator[str]:
    """resource.py trusting `issuer`; yields its MCP URL (`http://127.0.0.1:<port>/mcp`)."""
    with serving([sys.executable, str(RESOURCE), issuer, "--name", name], "the protected MCP server") as (
        port,
        _proc,
    ):
        yield f"http://127.0.0.1:{port}/mcp"


@dataclass(frozen=True)
class Landing:
    """Where the browser ended after the authorization server: its address, and the text it showed."""

    url: str
    text: str

    @property
    def query(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.url).query).items()}


class Browser:
    """The person's browser: a Chromium that reaches loopback addresses only."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        if not CHROMIUM.exists():
            import pytest

            pytest.skip(f"no Chromium at {CHROMIUM}: run `bash scripts/browser-deps.sh`")
        self._playwright = sync_playwright().start()
        self._chromium = self._playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS)
        )
        self.context = self.fresh()

    def fresh(self) -> Any:
        """A new browser context: no cookies, so no session at the authorization server."""
        context = self._chromium.new_context()
        context.set_default_timeout(BROWSER_MS)
        context.route("**/*", _loopback_only)
        return context

    def sign_in(
        self,
        authorization_url: str,
        *,
        user: str = USER,
        password: str = PASSWORD,
        context: Any = None,
        unreachable: str | None = None,
    ) -> Landing:
        """Open `authorization_url` in a new tab, sign in on the provider's page if it asks, and return where
        the tab ended (the redirect with `code` and `state`) once that page has loaded.

        With `unreachable` (an origin such as "http://127.0.0.1:5000"), requests there fail as they do when
        the loopback runs on another machine than the browser: the address is still the one to paste.
        """
        page = (context or self.context).new_page()
        issuer = _origin(authorization_url)
        refused: list[str] = []
        if unreachable is not None:
            # Playwright's routes skip redirect hops; the DevTools protocol's Fetch domain sees each one.
            devtools = page.context.new_cdp_session(page)

            def refuse(event: dict[str, Any]) -> None:
                refused.append(event["request"]["url"])
                devtools.send(
                    "Fetch.failRequest", {"requestId": event["requestId"], "errorReason": "ConnectionRefused"}
                )

            devtools.on("Fetch.requestPaused", refuse)
            devtools.send(
                "Fetch.enable", {"patterns": [{"urlPattern": f"{unreachable}/*", "requestStage": "Request"}]}
            )
        try:
            page.goto(authorization_url)
            if page.get_by_label("Password").count():
                page.get_by_label("User name").fill(user)
                page.get_by_label("Password").fill(password)
                page.get_by_role("button", name="Sign in").click()
            if unreachable is not None:
                deadline = time.monotonic() + BROWSER_MS / 1000
                while not refused and time.monotonic() < deadline:
                    page.wait_for_timeout(50)  # lets Playwright dispatch the DevTools event
                assert refused, "the browser never tried the unreachable redirect"
                return Landing(refused[-1], "")
            page.wait_for_url(lambda url: _origin(url) != issuer, wait_until="load")
            return Landing(str(page.url), str(page.locator("body").inner_text()))
        finally:
            page.close()

    def close(self) -> None:
        self._chromium.close()
        self._playwright.stop()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _loopback_only(route: Any) -> None:
    host = urlsplit(route.request.url).hostname or ""
    if host in LOOPBACK_HOSTS or f"[{host}]" in LOOPBACK_HOSTS:
        route.fallback()
    else:
        route.abort("blockedbyclient")


class Loopback:
    """A redirect listener on 127.0.0.1 at a free port (RFC 8252) for the SDK's own client: `uri` to register,
    `wait()` for the query of the next redirect the browser brought back."""

    def __init__(self) -> None:
        self._queries: queue.Queue[dict[str, str]] = queue.Queue()
        queries = self._queries

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                if parts.path != "/callback":
                    self.send_error(404)
                    return
                body = b"Signed in. You may close this tab."
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                queries.put({k: v[0] for k, v in parse_qs(parts.query).items()})

            def log_message(self, format: str, *args: Any) -> None:  # the request line holds the code
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self._server.server_address[1]}/callback"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def wait(self, timeout: float = 30) -> dict[str, str]:
        try:
            return self._queries.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("the browser never came back to the loopback") from None

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Loopback:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
