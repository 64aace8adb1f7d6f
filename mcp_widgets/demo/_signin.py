"""A tiny local sign-in page for the demo's URL-mode elicitation.

URL mode exists for things that must not pass through the MCP client (passwords, OAuth, payments): the
server asks the person to open a page, the person finishes there, and the server learns of it out of band.
Here that "elsewhere" is a page this process serves itself on 127.0.0.1, started lazily in a daemon thread the
first time `sign_in` is called. The page has one button; pressing it (a POST to
`/sign-in/<token>/complete`) completes the sign-in. Nothing is checked: it stands in for a real identity
provider.

Where the browser runs matters, not where the server runs. The URL is opened by the person's *browser*, while
the MCP server runs next to the notebook kernel. When JupyterLab runs on a remote machine (a server, a
container, a cloud VM), the browser cannot reach the remote 127.0.0.1 by itself:

- forward the port, e.g. `ssh -L 8976:127.0.0.1:8976 you@remote` (VS Code and most cloud IDEs forward ports on
  request), then the URL works unchanged in the local browser; the port is stable (`--sign-in-port`, default
  8976) so the forward can be set up once;
- or publish it behind an https address that reaches it (e.g. jupyter-server-proxy at
  `https://hub.example.org/user/me/proxy/8976/`) and pass that as `--sign-in-url`: links then use that base.
  Clients only offer `https://` links, plus `http://` for localhost, 127.0.0.1 and [::1].

If the stable port is taken (another demo server is running), a free port is used instead and logged.
"""

from __future__ import annotations

import contextlib
import html
import logging
import secrets
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel

__all__ = ["DEFAULT_SIGN_IN_PORT", "SignInPages"]

DEFAULT_SIGN_IN_PORT = 8976
SHUTDOWN_POLL = 0.05
"""Seconds between the page server's looks at a close request: socketserver's default (0.5) made every close
wait that long."""
logger = logging.getLogger(__name__)

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Demo sign-in</title>
<style>body{{font-family:system-ui,sans-serif;max-width:32em;margin:4em auto;line-height:1.5}}
button{{font-size:1.1em;padding:.5em 1.5em}}</style></head>
<body><h1>mcp-widgets demo: sign in</h1>
<p>This page stands in for a real sign-in (a password form, an OAuth consent screen, a payment).
It is served by the demo MCP server itself. What you do here never passes through the notebook.</p>
{body}
</body></html>
"""
_FORM = '<form method="post" action="{action}"><button type="submit">Sign in as demo-user</button></form>'
_DONE = "<p><strong>Signed in.</strong> You can close this tab and go back to the notebook.</p>"
_UNKNOWN = "<p>This sign-in link is unknown or has expired. Start again from the notebook.</p>"


class SignInPages:
    """Pending sign-ins, and the local HTTP server that completes them."""

    def __init__(
        self, *, host: str = "127.0.0.1", port: int = DEFAULT_SIGN_IN_PORT, public_url: str | None = None
    ):
        self.host = host
        self.port = port
        self.public_url = public_url.rstrip("/") if public_url else None
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._done: dict[str, bool] = {}  # token -> completed?
        self._waiters: dict[str, list[Callable[[], None]]] = {}

    # -- the HTTP side (runs in the server thread) --------------------------------------------------------

    @property
    def base_url(self) -> str:
        """Where links point: `--sign-in-url` if given, else the local server (started on first use)."""
        local = self.local_url
        return self.public_url or local

    @property
    def local_url(self) -> str:
        """Where the page server listens (started on first use)."""
        host, port = self._start().server_address[:2]
        if not isinstance(host, str):  # a bound socket's name is a str; typeshed allows what bind() takes
            host = host.decode()
        if host in ("0.0.0.0", "::", ""):  # listening everywhere: link to this machine
            host = "127.0.0.1"
        return f"http://{host}:{port}"

    def _start(self) -> ThreadingHTTPServer:
        with self._lock:
            if self._httpd is None:
                try:
                    self._httpd = ThreadingHTTPServer((self.host, self.port), _handler(self))
                except OSError:
                    if self.port == 0:
                        raise
                    self._httpd = ThreadingHTTPServer((self.host, 0), _handler(self))
                    logger.warning(
                        "sign-in port %d is taken; using %d instead", self.port, self._httpd.server_address[1]
                    )
                self._httpd.daemon_threads = True
                serving = threading.Thread(
                    target=self._httpd.serve_forever, args=(SHUTDOWN_POLL,), name="demo-sign-in", daemon=True
                )
                serving.start()
            return self._httpd

    def close(self) -> None:
        """Stop the local page server (it restarts on next use)."""
        with self._lock:
            httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def complete(self, token: str) -> bool:
        """Mark a sign-in done (what the page's button does); False for an unknown token."""
        with self._lock:
            if token not in self._done:
                return False
            self._done[token] = True
            waiters = self._waiters.pop(token, [])
        for wake in waiters:
            wake()
        return True

    def known(self, token: str) -> bool:
        with self._lock:
            return token in self._done

    # -- the MCP side ----------------------------------------------------------------------------------------

    def new(self) -> str:
        """Start a sign-in; returns its token (also the 2025-11-25 elicitation id)."""
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._done[token] = False
        return token

    def url(self, token: str) -> str:
        return f"{self.base_url}/sign-in/{token}"

    def completed(self, token: str) -> bool:
        with self._lock:
            return self._done.get(token, False)

    def on_complete(self, token: str, callback: Callable[[], None]) -> None:
        """Call `callback` (from the page server's thread) when the sign-in completes, or now if it has."""
        with self._lock:
            if not self._done.get(token):
                self._waiters.setdefault(token, []).append(callback)
                return
        callback()

    async def wait(self, token: str, timeout: float) -> bool:
        """Wait until the page's button is pressed (True) or `timeout` seconds pass (False)."""
        done = anyio.Event()
        loop = anyio.lowlevel.current_token()

        def wake() -> None:
            # Called from the HTTP thread: hop onto this event loop to set the event.
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                anyio.from_thread.run_sync(done.set, token=loop)

        with self._lock:
            if self._done.get(token):
                return True
            self._waiters.setdefault(token, []).append(wake)
        try:
            with anyio.move_on_after(timeout):
                await done.wait()
            return done.is_set()
        finally:
            with self._lock:
                waiters = self._waiters.get(token, [])
                if wake in waiters:
                    waiters.remove(wake)


def _handler(pages: SignInPages) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _token(self, suffix: str = "") -> str | None:
            parts = self.path.split("?", 1)[0].strip("/").split("/")
            want = 3 if suffix else 2
            if len(parts) != want or parts[0] != "sign-in" or (suffix and parts[2] != suffix):
                return None
            return parts[1]

        def _send(self, status: int, body: str) -> None:
            data = _PAGE.format(body=body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            token = self._token()
            if token is None or not pages.known(token):
                self._send(404, _UNKNOWN)
            elif pages.completed(token):
                self._send(200, _DONE)
            else:
                # A relative action keeps the form working behind a proxy (--sign-in-url).
                self._send(200, _FORM.format(action=html.escape(f"{token}/complete")))

        def do_POST(self) -> None:
            # Completing is a POST, never a GET: a link preview or prefetch must not sign anyone in.
            token = self._token("complete")
            if token is not None and pages.complete(token):
                self._send(200, _DONE)
            else:
                self._send(404, _UNKNOWN)

        def log_message(self, format: str, *args: Any) -> None:
            # Quiet: stderr noise helps nobody, and the tokens in paths stay out of logs.
            return

    return Handler
