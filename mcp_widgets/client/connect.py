"""`connect` and `connect_sync`: make a `Server` and wait for its handshake.

Both take exactly what `Server` takes (its signature is the one place the options are written; see
`_options_of`). The bound on connecting is the connection's own (`Connection.start`).
"""

from __future__ import annotations

import concurrent.futures
import inspect
from collections.abc import Callable, Generator
from typing import Any, ParamSpec, TypeVar

from ..core.exceptions import one_line
from .configs import lookup as configs
from .handshake import await_connected, wait_connected
from .server import Server, build

P = ParamSpec("P")
R = TypeVar("R")


def _options_of(source: Callable[P, Any]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Give the decorated `fn(target, **options)` the parameters of `source`: for type checkers, `help`
    and completion alike, so that the options are written once (in `Server.__init__`)."""

    def use(fn: Callable[..., R]) -> Callable[P, R]:
        fn.__signature__ = inspect.signature(source).replace(  # type: ignore[attr-defined]
            return_annotation=inspect.signature(fn).return_annotation
        )
        return fn

    return use


class _Connecting:
    """What `connect` returns: awaitable (`srv = await connect(...)`) and an async context manager."""

    def __init__(
        self, server: Server | None, make: Callable[[], Server] | None = None, entry: Any = None
    ) -> None:
        self._server = server
        self._make = make
        self._entry = entry
        self._ready: concurrent.futures.Future[None] | None = None

    def _begin(self) -> concurrent.futures.Future[None]:
        if self._ready is None:
            assert self._server is not None
            self._ready = self._server._start()
        return self._ready

    @one_line  # awaited by the cell itself (`__await__`): a ConnectError leaves it as one line
    async def _open(self) -> Server:
        if self._server is None:  # a configured server with inputs: asked in the cell first
            assert self._make is not None
            await configs.ask_inputs(self._entry)
            self._server = self._make()
        ready = self._begin()
        await await_connected(ready, self._server._signal_close)
        return self._server

    def __await__(self) -> Generator[Any, None, Server]:
        return self._open().__await__()

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"connect(...) returns something to await, which has no {name!r}: did you forget await? "
            "(srv = await mw.connect(...), or srv = mw.connect_sync(...))"
        )

    @one_line
    async def __aenter__(self) -> Server:
        return await self._open()

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            await self._server.aclose()


@_options_of(Server)
@one_line
def connect(target: Any, **options: Any) -> _Connecting:
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
        auth: A bearer token string or an `httpx2.Auth` (never shown). Without it, an http(s) server that
            answers 401 with OAuth metadata gets a sign-in card in the calling cell (docs/signing-in.md).
        env: Extra environment for a stdio server (never shown).
        output: An ipywidgets `Output` where forms go (for calls made from widget callbacks).
        transport: "auto", or force "http" / "sse" for URLs.
        log_level: The server log messages to ask for ("debug" ... "emergency"; default "info"; None: none).
            They appear in a collapsed log under the call that caused them, else go to the `mcp_widgets`
            Python logger.
        max_questions: How many questions one call may ask: an int n (n per call, at most 20 of them open
            at once), or a pair (per call, open at once); default (100, 20). "Open at once" is one
            2026-07-28 round, or the 2025-11-25 requests still unanswered; input-required rounds count
            toward the per-call bound. Past it the question is refused (-32602) and the call raises
            `TooManyQuestions`.
        client_id: A client id registered with the authorization server beforehand (used first).
        client_metadata_url: An https address of this client's Client ID Metadata Document (next).
        scopes: Scopes to ask for besides those the server names (a list, or one space-separated str).
        token_store: Where sign-in credentials live: None (memory, this kernel), "file" (a 0600 file in the
            Jupyter data directory), "keyring", or an SDK `TokenStorage`.
        config: For a target that names a server in an `mcp.json` file, the file to take it from (needed
            when the name is in several, or when the name is not a plain word; docs/servers.md),
            or a row of `mw.servers()` (a `ServerConfig`).
        apps: Show MCP Apps under the calls of tools that have one, and advertise the extension (default
            True; False: none are shown, docs/apps.md).
        wire: How many JSON-RPC messages `srv.wire` keeps, redacted as captured (default 5,000; 0: none are
            captured).

    Raises:
        ValueError, TypeError: An option is wrong (one line naming it; nothing was started). The same checks
            run when one is set on the server later (`srv.timeout = 5`).
        ConnectError: The server could not be reached or the handshake failed.
        ConfigError: A configured server's config cannot be used (an unset variable, an ambiguous name).
    """
    entry = configs.lookup(target, options.get("config"))
    if entry is not None:
        options["config"] = entry  # looked up once: Server reads no file again
    if entry is not None and configs.missing_inputs(entry):
        return _Connecting(None, lambda: build(target, **options), entry)
    return _Connecting(build(target, **options))


@_options_of(Server)
@one_line
def connect_sync(target: Any, **options: Any) -> Server:
    """`connect` for synchronous code: returns the connected `Server` (close it with `srv.close()`)."""
    entry = configs.lookup(target, options.get("config"))
    if entry is not None:
        options["config"] = entry  # looked up once: Server reads no file again
        configs.ask_inputs_sync(entry)  # a configured server's inputs, asked in the cell first
    server = build(target, **options)
    wait_connected(server._start(), server._signal_close)
    return server
