"""A connection's life on the client thread: connect (with the SSE fallback), serve, notice loss, close."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import tempfile
import warnings
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning

from .. import kernel
from ..core.exceptions import (
    ConnectError,
    ConnectionClosedError,
)
from ..core.protocol import is_modern
from ..core.redaction import strip_url_secrets
from ..core.version import __version__
from . import url_flow
from .calls import _describe_exc
from .listings import ServerInfo
from .runtime import _client_loop, _submit
from .targets import _http_transport, _watched

if TYPE_CHECKING:
    from .server import Server

log = logging.getLogger("mcp_widgets")


CONNECT_TIMEOUT = 60.0
"""Bound on connecting when `timeout=` is not given (a server that never answers must not hang a cell)."""


class ConnectionMixin:
    """`Server`: the connection's lifecycle."""

    def _start(self) -> concurrent.futures.Future[None]:
        """Start connecting; the future resolves once the handshake is done."""
        # Load the widget code now, on the caller's thread: not on the first question, where it would
        # delay the form by up to a second.
        from .. import widgets  # noqa: F401

        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._state = "connecting"
        self._runner = _submit(self._run(ready))
        return ready

    def _transport_for(self, via: str) -> Any:
        target = self._target
        if target.kind == "inproc":
            return target.obj
        if target.kind == "transport":
            return target.obj
        if target.kind == "stdio":
            from mcp.client.stdio import stdio_client

            assert target.params is not None
            # Server stderr goes to a file, not the kernel's stderr (it would land in random cells).
            self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            return _watched(stdio_client(target.params, errlog=self._errlog), self._stream_ended)
        assert target.url is not None
        return _http_transport(target.url, self._headers, self._auth, sse=(via == "sse"))

    async def _run(self, ready: concurrent.futures.Future[None]) -> None:
        """The connection's life: enter the SDK client, serve until closed, exit (client thread)."""
        self._closing = asyncio.Event()
        vias = [self._via]
        if self._target.kind == "http" and self._transport == "auto":
            vias.append("sse")  # fallback for servers that only speak the older HTTP+SSE transport
        first_error: BaseException | None = None
        try:
            for via in vias:
                try:
                    client = Client(
                        self._transport_for(via),
                        mode=self.mode,
                        elicitation_callback=self._on_elicit,
                        logging_callback=self._on_log,
                        log_level=self.log_level,  # type: ignore[arg-type]
                        message_handler=self._on_message,
                        client_info=mcp_types.Implementation(name="mcp-widgets", version=__version__),
                    )
                    async with client:
                        self._via = via
                        await self._ask_for_logs(client)
                        await self._connected(client, ready)
                        await self._closing.wait()
                    return
                except Exception as exc:
                    if ready.done():
                        raise
                    first_error = first_error or exc
                    log.debug("connecting to %s via %s failed", self.name, via, exc_info=True)
            if not ready.done():
                ready.set_exception(self._connect_error(first_error))
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(self._connect_error(exc))
            elif not isinstance(exc, asyncio.CancelledError):
                log.debug("connection to %s ended with an error", self.name, exc_info=True)
        finally:
            self._client = None
            if self._state != "lost":
                self._state = "closed"
            if self._errlog is not None:
                self._errlog.close()
                self._errlog = None

    async def _connected(self, client: Client, ready: concurrent.futures.Future[None]) -> None:
        self._client = client
        info = client.server_info
        self.declared_name = info.name if info is not None and info.name else None
        self.protocol_version = client.protocol_version
        caps = client.server_capabilities
        self._info = ServerInfo.from_session(info, client.protocol_version, caps, client.instructions)
        # What the server offers, listed once now so `srv.tools` etc. show at once; a listing that fails
        # (or never answers) leaves that one empty rather than failing the connection.
        kinds: tuple[Literal["tools", "resources", "prompts"], ...] = ("tools", "resources", "prompts")
        limit = self.timeout or CONNECT_TIMEOUT
        fetched = await asyncio.gather(
            *(asyncio.wait_for(self._fetch_listing(client, kind), limit) for kind in kinds),
            return_exceptions=True,
        )
        for kind, outcome in zip(kinds, fetched, strict=True):
            if isinstance(outcome, Exception):
                log.debug("listing the %s of %s failed", kind, self.name, exc_info=outcome)
        self._state = "connected"
        ready.set_result(None)

    def _connect_error(self, exc: BaseException | None) -> BaseException:
        if isinstance(exc, asyncio.CancelledError):
            return ConnectError(f"connecting to {self.name!r} was cancelled")
        detail = _describe_exc(exc) if exc is not None else "unknown error"
        if self._target.url:  # the URL may carry a token in its query or userinfo
            detail = detail.replace(self._target.url, self._target.where)
        tail = self._stderr_tail()
        text = f"could not connect to {self.name!r} ({self._via}): {detail}"
        if tail:
            text += f"\nserver stderr (last lines):\n{tail}"
        error = ConnectError(text)
        url = self._target.url
        # A URL's token or password in the transport's own errors would stay in the traceback.
        error.__cause__ = exc if not url or strip_url_secrets(url) == url else None
        return error

    def _stderr_tail(self, lines: int = 8) -> str:
        errlog = self._errlog
        if errlog is None:
            return ""
        try:
            errlog.flush()
            errlog.seek(0)
            return "\n".join(errlog.read().splitlines()[-lines:])
        except (OSError, ValueError):
            return ""

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            log.debug("transport error from %s: %s", self.name, _describe_exc(message))
        else:
            url_flow.on_message(self, message)  # notifications/elicitation/complete
        await asyncio.sleep(0)

    async def _ask_for_logs(self, client: Client) -> None:
        """2025-11-25: ask once for log messages at `log_level` (2026-07-28 asks per request instead)."""
        level = self.log_level
        if level is None or is_modern(client.protocol_version):
            return
        if client.server_capabilities.logging is None:
            return
        try:
            with warnings.catch_warnings():  # deprecated as of 2026-07-28; still the 2025-11-25 way
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await asyncio.wait_for(client.set_logging_level(level), self.timeout or CONNECT_TIMEOUT)
        except Exception:
            log.debug("%s did not take logging/setLevel %s", self.name, level, exc_info=True)

    def _stream_ended(self) -> None:
        """The server's output ended (client thread): unless we are closing, the server is gone."""
        if self._state == "connected" and not (self._closing is not None and self._closing.is_set()):
            self._connection_lost()

    def _connection_lost(self) -> None:
        """The server went away (client thread): no open question can be answered any more."""
        self._state = "lost"
        for request, record in list(self._pending.items()):
            kernel.post(partial(self._withdrawn, request, record))

    def _require_connected(self) -> None:
        if self._state == "connected" and self._client is not None:
            return
        if self._state == "lost":
            raise ConnectionClosedError(
                f"the server {self.name!r} disconnected; connect again", code=mcp_types.CONNECTION_CLOSED
            )
        raise ConnectError(f"{self.name!r} is {self._state}, not connected")

    def _signal_close(self) -> concurrent.futures.Future[None] | None:
        runner = self._runner
        closing = self._closing
        if runner is None or runner.done():
            self._state = "closed" if self._state != "lost" else "lost"
            return None
        if closing is not None:
            _client_loop().call_soon_threadsafe(closing.set)
        else:
            runner.cancel()
        return runner

    def close(self, timeout: float = 10.0) -> None:
        """Disconnect (open forms end as withdrawn; a stdio server process is stopped)."""
        runner = self._signal_close()
        if runner is not None:
            concurrent.futures.wait([runner], timeout=timeout)
            if not runner.done():
                runner.cancel()

    async def aclose(self) -> None:
        """`close` for async code."""
        runner = self._signal_close()
        if runner is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.wrap_future(runner), 10.0)

    async def __aenter__(self) -> Server:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
