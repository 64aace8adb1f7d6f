"""`Connection`: a server's SDK client on the client thread: connect (SSE fallback), serve, lose, close.

One concept: the life of one connection, from the first handshake to the last close, with what each state
change tells the parts that depend on it. See docs/architecture.md.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import re
import sys
import tempfile
import warnings
from collections.abc import Awaitable, Callable, Collection, Mapping
from functools import partial
from typing import IO, TYPE_CHECKING, Any, Literal, Protocol, cast

import mcp_types
from mcp import Client
from mcp.client.extension import ClientExtension
from mcp.shared.exceptions import MCPDeprecationWarning

from ..core.exceptions import ConnectError, ConnectionClosedError
from ..core.protocol import is_modern
from ..core.redaction import strip_url_secrets
from ..core.signin_addresses import RECONNECT_TO_SIGN_IN, ConnectBudget, SignInError
from ..core.text import clip_line
from ..core.version import __version__
from . import catalog, privacy, streams, unparsed
from .functions import keep_invalid_results
from .listings import ServerInfo
from .record import describe_exc
from .runtime import RUNTIME
from .signin.provider import SignInProvider, sign_out, signin_error
from .targets import NotJsonRpc, Target, TransportName, http_transport, quoted_line
from .tasks import experimental as tasks
from .tasks import extension as tasks2026

if TYPE_CHECKING:
    from .context import LinkState, ServerContext
    from .display import CallDisplay
    from .in_flight import CallsInFlight
    from .live import Live
    from .record import CallRecord
    from .wire.capture import WireCapture

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

log = logging.getLogger("mcp_widgets")

NAME_KEEP = 80
"""Characters of a server's declared name kept when it names the server (`node …/index.js`)."""


CONNECT_TIMEOUT = 60.0
"""Bound on connecting when `timeout=` is not given (a server that never answers must not hang a cell)."""


class Questions(Protocol):
    """What the connection asks of the questions part (`Intake`), on the client thread."""

    async def on_elicit(self, context: Any, params: mcp_types.ElicitRequestParams) -> Any:
        """The SDK's elicitation callback."""
        ...

    def on_message(self, message: Any) -> None:
        """A server message (`notifications/elicitation/complete` ends a URL card's wait)."""
        ...

    def withdraw_all(self, kept: Collection[CallRecord] = ()) -> None:
        """The connection went away: open questions end as withdrawn, but those of the `kept` calls."""
        ...

    def end_loose_cards(self) -> None:
        """The connection went away: URL cards no call was found for stop waiting."""
        ...


class Connection:
    """A server's connection: the SDK client and its life (connect, serve, notice loss, close).

    It writes what it learns into `ctx.learned` and its state into `ctx.link`; the server's settings are
    read from `ctx.settings` when used. The SDK client calls back into `intake` (questions, `Questions`) and
    `display` (log messages); the `calls` in flight are stopped and `open_tasks` cancelled when it closes.
    """

    def __init__(
        self,
        ctx: ServerContext,
        target: Target,
        *,
        intake: Questions,
        calls: CallsInFlight,
        display: CallDisplay,
        open_tasks: tasks.OpenTasks,
        transport: TransportName,
        headers: Mapping[str, str] | None,
        auth: Any,
        signin: Mapping[str, Any] | None = None,
        wire: WireCapture,
        advertised: Callable[[], list[ClientExtension]] = list,
        live: Live | None = None,
    ) -> None:
        self.ctx = ctx
        self.wire = wire  # sees every message (`srv.wire` reads it)
        self.advertised = advertised
        """Further extensions to advertise (MCP Apps), read at each connect."""
        self.target = target
        self.live = live  # hears the notifications; told when connected and when it ended
        self.intake = intake
        self.calls = calls
        self.display = display
        self.open_tasks = open_tasks
        self.typed = privacy.watched(display.late, lambda: calls)  # redacts the SDK's log records
        self.transport = transport
        self.via = "sse" if transport == "sse" else target.kind
        """The transport in use (or tried first): "stdio", "http", "sse", "inproc", "transport"."""
        self.headers = dict(headers) if headers else {}
        self.auth = auth
        self.provider: SignInProvider | None = None
        """Ours, for an http(s) target connected without `auth=`: signs in when the server asks for it."""
        if target.kind == "http" and auth is None and target.url is not None:
            options = dict(signin or {})
            self.provider = SignInProvider(
                ctx,
                target.url,
                show=partial(display.place, None),
                pause_connect=self.pause_connect,
                client_id=options.get("client_id"),
                client_metadata_url=options.get("client_metadata_url"),
                scopes=options.get("scopes"),
                token_store=options.get("store"),
            )
        self.budget: ConnectBudget | None = None
        """`connect`'s timeout, paused while a sign-in card waits for the person."""
        self.closing: asyncio.Event | None = None
        self._runner: concurrent.futures.Future[None] | None = None
        self._ready: concurrent.futures.Future[None] | None = None
        self._declined: str | None = None
        """The refused sign-in that ended the connection (the SDK's transport ends with it), until the next
        start: later calls say so and how to sign in again, not "the server disconnected"."""
        self._refusal: str | None = None
        """The first HTTP error status (and its body's first line) while connecting."""
        self._errlog: IO[str] | None = None
        self.abandoned = unparsed.Abandoned()
        """Over stdio: the requests given up on, whose long answers are dropped unparsed."""

    # The link's state lives in the context, where the other parts read it.
    @property
    def state(self) -> LinkState:
        return self.ctx.link.state

    @state.setter
    def state(self, value: LinkState) -> None:
        self.ctx.link.state = value

    @property
    def client(self) -> Client | None:
        return self.ctx.link.client

    @client.setter
    def client(self, value: Client | None) -> None:
        self.ctx.link.client = value

    @property
    def released(self) -> bool:
        """`close` was asked for, or a failed connect gave up: its server's name is free for another."""
        return self.ctx.link.released

    @property
    def resuming(self) -> bool:
        """`reconnect` is under way: the tasks in flight are kept (not cancelled) for the next connection."""
        return self.ctx.link.resuming

    @property
    def closing_now(self) -> bool:
        """`close` was asked for (the connection is on its way down)."""
        return self.ctx.link.closing

    def start(self) -> concurrent.futures.Future[None]:
        """Start connecting; the future resolves once the handshake is done."""
        # Load the widget code now, on the caller's thread: not on the first question, where it would
        # delay the form by up to a second.
        from .. import widgets  # noqa: F401

        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.state = "connecting"
        self.ctx.link.released = self.ctx.link.closing = False
        self._declined = None
        limit = self.ctx.settings.timeout or CONNECT_TIMEOUT
        budget = self.budget = ConnectBudget(limit)
        self._runner = RUNTIME.submit(self._run(ready))
        RUNTIME.submit(self._bounded(ready, budget, limit))
        return ready

    async def _bounded(
        self, ready: concurrent.futures.Future[None], budget: ConnectBudget, limit: float
    ) -> None:
        """The one bound on connecting (client thread): the handshake not done when the budget is spent
        (paused while a sign-in card waits for the person), `ready` fails and the connection ends. Every
        way of connecting (`connect`, `connect_sync`, `reconnect`, a Connect button) waits on `ready`."""
        loop = asyncio.get_running_loop()
        settled = asyncio.Event()
        ready.add_done_callback(lambda _: loop.call_soon_threadsafe(settled.set))
        while not ready.done():
            left = budget.remaining()
            if left <= 0:
                took = f"connecting to {self.ctx.name!r} took longer than {limit:g} s"
                ready.set_exception(ConnectError(took))
                self.signal_close()
                return
            # While a card waits the budget stands still: look again now and then.
            with contextlib.suppress(asyncio.TimeoutError):  # TimeoutError itself from 3.11
                await asyncio.wait_for(settled.wait(), min(left, 1.0) if budget.paused else left)

    def _transport_for(self, via: str) -> Any:
        target = self.target
        if target.kind == "inproc":
            return target.obj
        if target.kind == "transport":
            return target.obj
        if target.kind == "stdio":
            from mcp.client.stdio import stdio_client

            assert target.params is not None
            # Server stderr goes to a file, not the kernel's stderr (it would land in random cells).
            self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            return unparsed.dropping(stdio_client(target.params, errlog=self._errlog), self.abandoned)
        assert target.url is not None
        return http_transport(
            target.url,
            self.headers,
            self.auth or self.provider,
            sse=(via == "sse"),
            on_refusal=self._refused,
            on_response=self.wire.http_exchange if self.wire.keep else None,
        )

    def _stacked(self, via: str) -> Any:
        """The transport in the stream stack (`streams.ORDER` says which layers, and why in that order)."""
        layers = streams.stack(
            self.target.kind, self.ctx, self.wire, on_end=self._stream_ended, on_garbage=self._not_json_rpc
        )
        return streams.stacked(self._transport_for(via), layers)

    def _refused(self, status: str) -> None:
        """An HTTP error answer while connecting: kept for the connect error (the first one)."""
        if self.state == "connecting" and self._refusal is None:
            self._refusal = status

    async def _run(self, ready: concurrent.futures.Future[None]) -> None:
        """The connection's life: enter the SDK client, serve until closed, exit (client thread)."""
        self.closing = asyncio.Event()
        self._ready = ready
        self._refusal = None
        intake, display, ctx = self.intake, self.display, self.ctx
        vias = [self.via]
        if self.target.kind == "http" and self.transport == "auto":
            vias.append("sse")  # fallback for servers that only speak the older HTTP+SSE transport
        first_error: BaseException | None = None
        try:
            for via in vias:
                try:
                    client = Client(
                        self._stacked(via),
                        mode=ctx.settings.mode,
                        elicitation_callback=cast(Any, intake.on_elicit),
                        extensions=[
                            *tasks2026.extensions(ctx, display, self.open_tasks, intake.on_elicit),
                            *self.advertised(),
                        ],
                        logging_callback=display.on_log,
                        log_level=cast(Any, ctx.settings.log_level),
                        message_handler=self._on_message,
                        # A round that asks counts toward max_questions; only state-only rounds are left.
                        input_required_max_rounds=ctx.settings.max_questions[0],
                        client_info=mcp_types.Implementation(name="mcp-widgets", version=__version__),
                    )
                    self.wire.tap_client(self.target.kind, client)  # in process: no transport to tap
                    async with client:
                        keep_invalid_results(client.session)  # srv.fn keeps a result that breaks outputSchema
                        self.via = via
                        await self._ask_for_logs(client)
                        await self._connected(client, ready)
                        await self.closing.wait()
                        if not self.resuming:
                            await self.open_tasks.cancel_all()  # the connection still carries tasks/cancel
                    await self._stop_calls()
                    return
                except Exception as exc:
                    if ready.done():
                        raise
                    refused = signin_error(exc)
                    first_error = refused or first_error or exc
                    quiet = bool(self.target.hidden)  # its traceback may quote a config's ${input:...} value
                    log.debug("connecting to %s via %s failed", ctx.name, via, exc_info=not quiet)
                    if refused is not None:
                        break  # the sign-in ended: trying SSE would only ask the person again
            if not ready.done():
                ready.set_exception(self._connect_error(first_error))
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(self._connect_error(exc))
            elif not isinstance(exc, asyncio.CancelledError):
                log.debug("connection to %s ended with an error", ctx.name, exc_info=True)
        finally:
            self.client = None
            if self.live is not None:
                self.live.ended("the connection was closed" if self.closing_now else "the server closed")
            if self.state == "connected" and not self.closing_now:
                self.lost()  # it ended without close(): the server or the network went away
            if self.state != "lost":
                self.state = "closed"
            if self._errlog is not None:
                self._errlog.close()
                self._errlog = None

    async def _stop_calls(self) -> None:
        """Closing: the calls still in flight end now (an in-process 2026-07-28 call is a plain await in
        the call's task, which closing the client does not reach)."""
        stopped = []
        intake = self.intake
        kept = self.open_tasks.calls() if self.resuming else set()
        for record in self.calls:
            task = record.task
            if task is None or task.done() or record in kept:
                continue
            if record.stopped is None:
                record.stopped = ConnectionClosedError(
                    f"{record.describe()} was stopped: the connection was closed",
                    code=mcp_types.CONNECTION_CLOSED,
                )
            stopped.append(task)
        if not self.resuming:
            intake.end_loose_cards()
        if stopped:
            intake.withdraw_all(kept)  # first: their questions end as "the connection was closed"
            for task in stopped:
                task.cancel()
            await asyncio.wait(stopped, timeout=1.0)

    async def _connected(self, client: Client, ready: concurrent.futures.Future[None]) -> None:
        self.client = client
        ctx, learned = self.ctx, self.ctx.learned
        info = client.server_info
        learned.declared_name = info.name if info is not None and info.name else None
        if self.target.generic and ctx.name == self.target.name and learned.declared_name:
            # `node …/index.js`: "index.js" says nothing; the server's own name (as text, one line) does.
            ctx.settings.name = clip_line(learned.declared_name, NAME_KEEP)
        learned.protocol_version = client.protocol_version
        caps = client.server_capabilities
        learned.info = ServerInfo.from_session(info, client.protocol_version, caps, client.instructions)
        # What the server offers, listed once now so `srv.tools` etc. show at once (redacted: a reconnect's
        # may quote what was typed); a listing that fails (or never answers) leaves that one empty.
        kinds: tuple[Literal["tools", "resources", "prompts"], ...] = ("tools", "resources", "prompts")
        limit, typed = ctx.settings.timeout or CONNECT_TIMEOUT, self.typed.pattern
        fetched = await asyncio.gather(
            *(asyncio.wait_for(catalog.fetch(ctx, client, kind, typed), limit) for kind in kinds),
            return_exceptions=True,
        )
        for kind, outcome in zip(kinds, fetched, strict=True):
            if isinstance(outcome, Exception):
                log.debug("listing the %s of %s failed", kind, ctx.name, exc_info=outcome)
        if ready.done():  # the bound on connecting ran out meanwhile: this connection is ending
            return
        self.state = "connected"
        if self.live is not None:
            self.live.connected(client)
        ready.set_result(None)

    def _connect_error(self, exc: BaseException | None) -> BaseException:
        if isinstance(exc, asyncio.CancelledError):
            return ConnectError(f"connecting to {self.ctx.name!r} was cancelled")
        refused = signin_error(exc) if exc is not None else None
        if refused is not None:
            return SignInError(str(refused))  # our own words, with nothing of the SDK's chained
        exc = _telling(exc)
        detail = describe_exc(exc) if exc is not None else "unknown error"
        if self.target.url:  # the URL may carry a token in its query or userinfo
            detail = detail.replace(self.target.url, self.target.where)
        if "[SSL:" in detail or "CERTIFICATE_VERIFY" in detail:
            detail = f"TLS failed: {detail}"
        if self._refusal is not None:
            detail = f"the server answered {self._refusal} ({detail})"
        tail = self._stderr_tail()
        text = f"could not connect to {self.ctx.name!r} ({self.via}): {detail}"
        if tail:
            text += f"\nserver stderr (last lines):\n{tail}"
        error = ConnectError(self.target.scrubbed(text))  # a config's ${env:...} value quoted (a cwd)
        url = self.target.url
        # A URL's token or password (or a config's ${env:...} value) in the transport's errors would stay.
        error.__cause__ = None if self.target.hidden or (url and strip_url_secrets(url) != url) else exc
        return error

    def _stderr_tail(self, lines: int = 8) -> str:
        errlog = self._errlog
        if errlog is None:
            return ""
        try:
            errlog.flush()
            errlog.seek(0)
            return stderr_tail(errlog.read(), lines)
        except (OSError, ValueError):
            return ""

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            log.debug("transport error from %s: %s", self.ctx.name, describe_exc(message))
        else:
            self.intake.on_message(message)  # notifications/elicitation/complete
            if self.live is not None:
                self.live.heard(message)  # resource updates, list changes
        await asyncio.sleep(0)

    async def _ask_for_logs(self, client: Client) -> None:
        """2025-11-25: ask once for log messages at `log_level` (2026-07-28 asks per request instead)."""
        level = self.ctx.settings.log_level
        if level is None or is_modern(client.protocol_version):
            return
        if client.server_capabilities.logging is None:
            return
        try:
            with warnings.catch_warnings():  # deprecated as of 2026-07-28; still the 2025-11-25 way
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                set_level = cast(Callable[[Any], Awaitable[Any]], client.set_logging_level)
                await asyncio.wait_for(set_level(level), self.ctx.settings.timeout or CONNECT_TIMEOUT)
        except Exception:
            log.debug("%s did not take logging/setLevel %s", self.ctx.name, level, exc_info=True)

    def _not_json_rpc(self, error: Exception) -> None:
        """A stdout line that is not JSON-RPC (client thread): before the handshake ended it fails the
        connect at once, quoting the line (a banner on stdout would otherwise wait out the timeout);
        afterwards the SDK's own handling goes on."""
        if self.state == "connecting":
            failure = NotJsonRpc(
                f"the server wrote to stdout a line that is not JSON-RPC: {quoted_line(error)} (an MCP stdio "
                "server may write only JSON-RPC messages to stdout; logs and banners go to stderr)"
            )
            ready = self._ready
            if ready is not None and not ready.done():
                ready.set_exception(self._connect_error(failure))  # now: stopping the server takes seconds
            raise failure

    def _stream_ended(self) -> None:
        """The server's output ended (client thread): unless we are closing, the server is gone."""
        if self.state == "connected" and not self.closing_now:
            self.lost()

    def lost(self, declined: SignInError | None = None) -> None:
        """The server went away (client thread), or a refused sign-in (`declined`) ended the connection: no
        open question can be answered any more."""
        self.state = "lost"
        if self.live is not None:
            self.live.ended("the server closed")
        if declined is not None:
            self._declined = str(declined)
        self.intake.withdraw_all(self.open_tasks.calls())  # a task's questions wait for a reconnect
        self.intake.end_loose_cards()

    def require_connected(self) -> Client:
        """The SDK client; raises unless connected."""
        if self.state == "connected" and self.client is not None:
            return self.client
        if self.state == "lost" and self._declined is not None:
            raise SignInError(f"{self._declined}, which ended the connection; {RECONNECT_TO_SIGN_IN}")
        if self.state == "lost":
            raise ConnectionClosedError(
                f"the server {self.ctx.name!r} disconnected; connect again",
                code=mcp_types.CONNECTION_CLOSED,
            )
        raise ConnectError(f"{self.ctx.name!r} is {self.state}, not connected")

    def pause_connect(self, paused: bool) -> None:
        """A sign-in card is up (True) or ended (False): `connect`'s clock stops meanwhile."""
        budget = self.budget
        if budget is not None:
            budget.pause() if paused else budget.resume()

    def sign_out(self) -> None:
        sign_out(self.provider or self.auth)

    def take_refusal(self) -> SignInError | None:
        """The refused sign-in that ended the connection's last request, once (None: none was)."""
        provider = self.provider
        if provider is None:
            return None
        refused, provider.refused = provider.refused, None
        return refused

    def signal_close(self) -> concurrent.futures.Future[None] | None:
        """Ask the connection to end; returns what to wait for (None when it is not running)."""
        # At once: a connect that failed frees the name before its transport unwinds.
        self.ctx.link.released = True
        runner = self._runner
        closing = self.closing
        if runner is None or runner.done():
            self.state = "closed" if self.state != "lost" else "lost"
            return None
        if closing is not None and self.state != "connecting":
            self.ctx.link.closing = True
            RUNTIME.loop().call_soon_threadsafe(closing.set)
        else:
            # Still in the handshake, which `closing` cannot reach: cancelling unwinds the transport, so
            # a stdio server is stopped and HTTP connections are closed.
            runner.cancel()
        return runner

    def reconnect(self, timeout: float = 10.0) -> concurrent.futures.Future[None]:
        """End this connection, keeping the tasks in flight, and connect again (they resume on it)."""
        self.ctx.link.resuming = True
        try:
            self.close(timeout)
            return self.start()
        finally:
            self.ctx.link.resuming = False

    def close(self, timeout: float = 10.0) -> None:
        runner = self.signal_close()
        if runner is not None:
            concurrent.futures.wait([runner], timeout=timeout)
            if not runner.done():
                runner.cancel()

    async def aclose(self) -> None:
        runner = self.signal_close()
        if runner is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.wrap_future(runner), 10.0)


_FRAME = re.compile(r"\s+at\s")
"""A JavaScript stack frame (`    at Module._load (node:internal/...)`): where, never why."""

_WHY = re.compile(r"[A-Za-z_][\w.]*(?:Error|Exception)\b[^\n]*:")
"""An unindented line naming an error (`Error: Cannot find module ...`, `ModuleNotFoundError: ...`)."""


def stderr_tail(text: str, lines: int = 8) -> str:
    """The last `lines` lines of a failing server's stderr that say something, with the line that says why
    it failed even when more followed it (Node prints its stack frames and the error's fields after it)."""
    said = [line for line in text.splitlines() if line.strip() and not _FRAME.match(line)]
    tail = said[-lines:]
    why = next((line for line in reversed(said) if _WHY.match(line)), None)
    if why is not None and why not in tail:
        tail = [why, *tail[1 - lines :]] if lines > 1 else [why]
    return "\n".join(tail)


def _telling(exc: BaseException | None) -> BaseException | None:
    """The error a person needs out of a group the SDK's task groups made: ours about the server's stdout
    when it is in there (the other errors are the teardown it caused)."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _telling(inner)
            if isinstance(found, NotJsonRpc):
                return found
    return exc
