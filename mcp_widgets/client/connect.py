"""`connect` and `connect_sync`: make a `Server` and wait for its handshake."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Generator, Mapping
from typing import Any

from .. import kernel
from ..core.exceptions import ConnectError
from .answering import Handler
from .connection import CONNECT_TIMEOUT
from .display import DEFAULT_LOG_LEVEL
from .runtime import RUNTIME
from .server import Server
from .targets import Mode, TransportName


class _Connecting:
    """What `connect` returns: awaitable (`srv = await connect(...)`) and an async context manager."""

    def __init__(self, server: Server) -> None:
        self._server = server
        self._ready: concurrent.futures.Future[None] | None = None

    def _begin(self) -> concurrent.futures.Future[None]:
        if self._ready is None:
            self._ready = self._server._start()
        return self._ready

    async def _open(self) -> Server:
        ready = self._begin()
        limit = self._server.timeout or CONNECT_TIMEOUT
        try:
            await asyncio.wait_for(kernel.wait_async(ready), limit)
        except asyncio.TimeoutError:
            self._server._signal_close()
            raise ConnectError(f"connecting to {self._server.name!r} took longer than {limit:g} s") from None
        except BaseException:
            self._server._signal_close()
            raise
        return self._server

    def __await__(self) -> Generator[Any, None, Server]:
        return self._open().__await__()

    async def __aenter__(self) -> Server:
        return await self._open()

    async def __aexit__(self, *exc: object) -> None:
        await self._server.aclose()


def connect(
    target: Any,
    *,
    name: str | None = None,
    handler: Handler | None = None,
    mode: Mode = "auto",
    timeout: float | None = None,
    answer_timeout: float | None = None,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    env: Mapping[str, str] | None = None,
    output: Any = None,
    transport: TransportName = "auto",
    log_level: str | None = DEFAULT_LOG_LEVEL,
) -> _Connecting:
    """Connect to an MCP server: `srv = await connect(...)` or `async with connect(...) as srv:`.

    Args:
        target: A command line (string or argv list: stdio), an http(s) URL (streamable HTTP, falling back
            to SSE), `StdioServerParameters`, or an MCP server object (in-process).
        name: The name forms show for this server (default: the URL's host or the command).
        handler: Answers this server's questions instead of the person (see `mcp_widgets.handlers`).
        mode: "auto" (the newest protocol both sides speak) or "legacy" (force 2025-11-25).
        timeout: Seconds each request may take, never counting a person's think time (and the connect).
        answer_timeout: Seconds a person may take to answer a question (then it is cancelled).
        headers: HTTP headers (never shown in reprs or outputs).
        auth: A bearer token string or an `httpx2.Auth` (never shown).
        env: Extra environment for a stdio server (never shown).
        output: An ipywidgets `Output` where forms go (for calls made from widget callbacks).
        transport: "auto", or force "http" / "sse" for URLs.
        log_level: The server log messages to ask for ("debug" ... "emergency"; default "info"; None: none).
            They appear in a collapsed log under the call that caused them, else go to the `mcp_widgets`
            Python logger.

    Raises:
        ConnectError: The server could not be reached or the handshake failed.
    """
    server = Server(
        target,
        name=name,
        handler=handler,
        mode=mode,
        timeout=timeout,
        answer_timeout=answer_timeout,
        headers=headers,
        auth=auth,
        env=env,
        output=output,
        transport=transport,
        log_level=log_level,
    )
    return _Connecting(server)


def connect_sync(
    target: Any,
    *,
    name: str | None = None,
    handler: Handler | None = None,
    mode: Mode = "auto",
    timeout: float | None = None,
    answer_timeout: float | None = None,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    env: Mapping[str, str] | None = None,
    output: Any = None,
    transport: TransportName = "auto",
    log_level: str | None = DEFAULT_LOG_LEVEL,
) -> Server:
    """`connect` for synchronous code: returns the connected `Server` (close it with `srv.close()`)."""
    server = Server(
        target,
        name=name,
        handler=handler,
        mode=mode,
        timeout=timeout,
        answer_timeout=answer_timeout,
        headers=headers,
        auth=auth,
        env=env,
        output=output,
        transport=transport,
        log_level=log_level,
    )
    ready = server._start()
    limit = timeout or CONNECT_TIMEOUT
    try:
        if kernel.in_comm_handler() or RUNTIME.in_client_thread():
            ready.result(timeout=limit)  # nothing to pump: connecting needs no clicks
        else:
            kernel.wait_sync(ready, timeout=limit)
    except (TimeoutError, concurrent.futures.TimeoutError):
        server._signal_close()
        raise ConnectError(f"connecting to {server.name!r} took longer than {limit:g} s") from None
    except BaseException:
        server._signal_close()
        raise
    return server
