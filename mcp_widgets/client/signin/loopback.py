"""The loopback redirect (RFC 8252): a one-shot listener on 127.0.0.1 for one sign-in (client thread).

A port is chosen per sign-in (the system's free one); the listener answers one redirect that matches the
sign-in's address and `state` with a plain "finishing sign-in, you may close this tab" page (the token
exchange comes after it: the card says how it ended), then closes. A request with a
wrong `state` (an old tab, another program on this machine) is refused with a page saying so and reported to
`on_refused`; the listener keeps waiting for the real one. Nothing is logged: the request line carries the
code. The same check serves the address a person pastes (`deliver`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from ...core.signin_addresses import (
    AuthorizationDenied,
    Redirect,
    RedirectRefused,
    SignInError,
    read_redirect,
)

__all__ = ["Loopback"]

_MAX_REQUEST = 16_384
_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
    "<body style='font-family: sans-serif; margin: 3em'><h2>{title}</h2><p>{text}</p></body></html>"
)
_DONE = (
    "Finishing sign-in",
    "You may close this tab and go back to the notebook: the sign-in card there says whether signing in "
    "worked.",
)
# Not "Signed in": the code is exchanged for a token after this page is sent, and that may still fail. The
# page is answered at once (never held open until the exchange ends: a browser or proxy may give up first).
_REFUSED = ("Not accepted", "This address does not belong to the sign-in the notebook is waiting for.")
# The pages are ours: only these fixed texts and our own reasons (no part of the request) appear on them.


class Loopback:
    """One sign-in's redirect listener. `start`, then `expect(state)`, then `await result()`; `close`."""

    def __init__(self, on_refused: Callable[[str], None] | None = None, *, what: str = "signing in") -> None:
        self.on_refused = on_refused
        self.what = what
        self.port = 0
        self._server: asyncio.Server | None = None
        self._state = ""
        self._result: asyncio.Future[Redirect] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def expect(self, state: str) -> None:
        self._state = state

    async def result(self) -> Redirect:
        assert self._result is not None
        return await asyncio.shield(self._result)

    def deliver(self, address: str) -> None:
        """Check `address` (the loopback's request, or one pasted); the right one ends the sign-in.

        Raises:
            RedirectRefused: Not this sign-in's redirect (why, never the address).
        """
        redirect = read_redirect(address, redirect_uri=self.redirect_uri, state=self._state)
        if self._result is not None and not self._result.done():
            self._result.set_result(redirect)
        self.close()

    def take(self, redirect: Redirect) -> None:
        """A redirect already checked (a pasted address, checked by the card)."""
        if self._result is not None and not self._result.done():
            self._result.set_result(redirect)
        self.close()

    def fail(self, exc: BaseException) -> None:
        if self._result is not None and not self._result.done():
            self._result.set_exception(exc)
        self.close()

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
            writer.close()
            return
        line = head[:_MAX_REQUEST].split(b"\r\n", 1)[0].decode("latin-1")
        method, _, rest = line.partition(" ")
        target = rest.rpartition(" ")[0] or rest
        page, status = _DONE, "200 OK"
        if method != "GET" or not target.startswith("/callback"):
            page, status = ("Not found", ""), "404 Not Found"
        else:
            try:
                self.deliver(f"http://127.0.0.1:{self.port}{target}")
            except AuthorizationDenied as exc:
                page, status = ("Not signed in", f"{exc}. You may close this tab."), "200 OK"
                self.fail(SignInError(f"{self.what} failed: {exc}"))
            except RedirectRefused as exc:
                page, status = _REFUSED, "400 Bad Request"
                if self.on_refused is not None:
                    self.on_refused(str(exc))
        body = _PAGE.format(title=page[0], text=page[1]).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
            "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()
