"""The notebook MCP client: connect to servers, call them, and let a person answer their questions.

The only module that drives the MCP SDK session. Every connection's `mcp.Client` lives on one asyncio event
loop in a daemon thread ("mcp-widgets-client"), so the kernel's own loop never runs SDK code and a blocked
cell cannot stall the protocol. An elicitation arrives on that loop; it becomes a `PendingRequest`, is handed
to the kernel's main thread (`kernel.post`), which builds the form in the calling cell's container and runs
the handler, and the loop awaits the request's `reply` future. The calling cell waits on a future too:
`await` (`kernel.wait_async`), blocking (`kernel.wait_sync`) or not at all (`Call`).

Each call makes one display in its cell (by display id): empty text until the call has something to show
(a form, progress, a log line), then the call's `CallPanel` box, and plain text again once the call ended,
when every widget model of the call is closed. Progress and log notifications arrive on the client thread
and are coalesced into at most one panel update per FLUSH_INTERVAL on the main thread.

    main thread                        client thread (asyncio)
    -----------                        -----------------------
    call_tool()  -- submit -------->   Client.call_tool()
    display made in the cell             elicitation callback -> PendingRequest
    _present(): form, handler  <-- post --'  awaits request.reply
    click -> request.settle()  -------->   reply sent / call retried with the answer
    wait_async / wait_sync     <--------   result
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import inspect
import json
import logging
import os
import re
import shlex
import signal
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlsplit

import mcp_types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from .. import kernel
from ..core.exceptions import (
    ConnectError,
    ConnectionClosedError,
    MCPWidgetsError,
    RequestTimeout,
    SchemaError,
    ServerError,
)
from ..core.history import default_history
from ..core.outcome import Action, Outcome, Reason
from ..core.requests import PendingRequest
from ..core.version import __version__
from .listings import PromptList, ResourceList, ServerInfo, ToolList, _clip

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

if TYPE_CHECKING:
    import ipywidgets

    from ..widgets import HistoryPanel
    from ..widgets._tool_form import ToolForm

__all__ = [
    "Call",
    "ConnectError",
    "ConnectionClosedError",
    "RequestTimeout",
    "Server",
    "ServerError",
    "ToolList",
    "connect",
    "connect_sync",
    "get_default_handler",
    "set_default_handler",
]

log = logging.getLogger("mcp_widgets")

T = TypeVar("T")
Handler = Callable[[Any], Awaitable[None]]
"""`handler(card)`: acts as the person on a form (or URL card); may fill, accept, decline or cancel it."""
Mode = Literal["auto", "legacy"] | str
TransportName = Literal["auto", "stdio", "http", "sse"]

LOOK_GRACE = 1.5
"""Seconds a form may stay unseen by any frontend before "nobody is looking" declines it."""
CONNECT_TIMEOUT = 60.0
"""Bound on connecting when `timeout=` is not given (a server that never answers must not hang a cell)."""
_MODERN = "2026-07-28"
DEFAULT_LOG_LEVEL = "info"
"""The server log messages a connection asks for by default (`connect(..., log_level=...)`; None: none)."""
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_PY_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
FLUSH_INTERVAL = 0.05
"""Seconds between two updates of a call's progress and log (a chatty server must not flood the frontend)."""
LOG_KEEP = 200
"""Log lines of a call buffered between two updates (older ones are counted, not kept)."""
_NO_BACK_CHANNEL = ("back-channel", "server-initiated requests")
"""How servers say they cannot ask mid-call on 2026-07-28 (SDK NoBackChannelError; fastmcp ctx.elicit)."""
_LEGACY_HINT = (
    "This server asks its questions the 2025-11-25 way (elicitation/create during the call): "
    'connect with mode="legacy".'
)


# --------------------------------------------------------------------------- the client thread

_loop_lock = threading.Lock()
_loop_box: list[asyncio.AbstractEventLoop] = []


def _client_loop() -> asyncio.AbstractEventLoop:
    """The shared event loop every connection runs on (started on first use)."""
    with _loop_lock:
        if _loop_box and not _loop_box[0].is_closed():
            return _loop_box[0]
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        threading.Thread(target=run, name="mcp-widgets-client", daemon=True).start()
        ready.wait()
        _loop_box[:] = [loop]
        return loop


def _submit(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    return asyncio.run_coroutine_threadsafe(coro, _client_loop())


def _in_client_thread() -> bool:
    return bool(_loop_box) and threading.current_thread().name == "mcp-widgets-client"


# --------------------------------------------------------------------------- handlers

_default_handler: list[Handler | None] = [None]


def set_default_handler(handler: Handler | None) -> None:
    """Use `handler` for every server connected without `handler=` (None: the person answers again)."""
    _default_handler[0] = handler


def get_default_handler() -> Handler | None:
    """The handler `set_default_handler` installed, or None."""
    return _default_handler[0]


def _handler_name(handler: Any) -> str:
    return str(getattr(handler, "__name__", None) or type(handler).__name__)


_warned_env: set[str] = set()


def _env_policy() -> tuple[Handler, str] | None:
    """The headless policy chosen by MCP_WIDGETS_HANDLER, if any."""
    value = os.environ.get("MCP_WIDGETS_HANDLER", "").strip()
    if not value:
        return None
    from .. import handlers

    policy = handlers.POLICIES.get(value.lower())
    if policy is None:
        if value not in _warned_env:
            _warned_env.add(value)
            log.warning(
                "MCP_WIDGETS_HANDLER=%r is not one of %s; ignored",
                value,
                ", ".join(sorted(handlers.POLICIES)),
            )
        return None
    return policy, f"MCP_WIDGETS_HANDLER={value.lower()}"


def _pick_handler(handler: Handler | None) -> tuple[Handler, Reason, str] | None:
    """Who answers instead of the person: this handler, else the default one, else MCP_WIDGETS_HANDLER."""
    handler = handler or _default_handler[0]
    if handler is not None:
        return handler, Reason.HANDLER, _handler_name(handler)
    policy = _env_policy()
    if policy is not None:
        return policy[0], Reason.POLICY, policy[1]
    return None


class _HandlerRun:
    """Drive `handler(card)` on the main thread, step by step, in every calling style.

    A blocked cell never returns to the kernel's event loop, so the handler's coroutine is stepped here:
    each step runs in a posted callback, and a future it awaits resumes it (through `post`) when done.
    Handlers that do not really suspend (the built-in ones) finish in the first step. In a blocked cell
    (`can_suspend=False`) the kernel's event loop cannot run, so a handler awaiting one of its futures
    would never resume: it gets a RuntimeError instead of hanging the call.
    """

    def __init__(
        self,
        handler: Handler,
        card: Any,
        reason: Reason,
        by: str,
        done: Callable[[BaseException | None], None],
        *,
        can_suspend: bool = True,
    ) -> None:
        self.handler = handler
        self.card = card
        self.reason = reason
        self.by = by
        self.done = done
        self.can_suspend = can_suspend
        self._it: Generator[Any, Any, Any] | None = None

    def _interrupted(self) -> None:
        self.card.finish(Action.CANCEL, reason=Reason.INTERRUPT, note="the kernel was interrupted")

    def start(self) -> None:
        try:
            with self.card.acting_as(self.reason, by=self.by):
                awaitable = self.handler(self.card)
        except KeyboardInterrupt:
            self._interrupted()
            raise  # the waiting cell must see it
        except BaseException as exc:
            self.done(exc)
            return
        if awaitable is None:  # a plain function is fine too
            self.done(None)
            return
        if not inspect.isawaitable(awaitable):
            self.done(TypeError(f"handler {self.by!r} returned {type(awaitable).__name__}, not an awaitable"))
            return
        self._it = awaitable.__await__()
        self._step(None)

    def _step(self, exc: BaseException | None) -> None:
        assert self._it is not None
        try:
            with self.card.acting_as(self.reason, by=self.by):
                yielded = self._it.send(None) if exc is None else self._it.throw(exc)
        except StopIteration:
            self.done(None)
            return
        except KeyboardInterrupt:
            self._interrupted()
            raise
        except BaseException as error:
            self.done(error)
            return
        _whole(self.card)  # the handler waits: so may the form
        if yielded is None:  # a bare yield (asyncio.sleep(0)): just continue soon
            kernel.post(partial(self._step, None))
            return
        add_done = getattr(yielded, "add_done_callback", None)
        if add_done is None:
            self._step(
                RuntimeError(f"handler {self.by!r} awaited {type(yielded).__name__}, which cannot be driven")
            )
            return
        if not self.can_suspend and hasattr(yielded, "get_loop"):
            yielded.cancel()
            self._step(
                RuntimeError(
                    f"handler {self.by!r} waited on the event loop inside a blocking call, where it cannot "
                    "run; use `await srv.call_tool(...)` or call_tool_background for handlers that wait"
                )
            )
            return
        add_done(lambda fut: kernel.post(partial(self._resume, fut)))

    def _resume(self, fut: Any) -> None:
        if hasattr(fut, "_asyncio_future_blocking"):
            fut._asyncio_future_blocking = False  # what asyncio's Task does before resuming a coroutine
        self._step(None)


def _whole(card: Any) -> None:
    """Make everything a card shows, if it is not made yet (a `_for_handler` form that now waits)."""
    card.children  # noqa: B018 (reading them makes them)


# --------------------------------------------------------------------------- calls


_CURRENT: contextvars.ContextVar[_CallRecord | None] = contextvars.ContextVar(
    "mcp_widgets_call", default=None
)


@dataclass(eq=False)
class _CallRecord:
    """One call in flight (tools/call, prompts/get, resources/read, ...)."""

    server: Server
    kind: str
    name: str
    style: Literal["await", "sync", "background"] = "await"
    """How the caller waits: a blocked or awaiting cell on an unsupported kernel cannot receive clicks."""
    panel: Any = None
    """The call's `CallPanel` (questions, progress, log), or None where nothing can show it."""
    display_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    """The display in the calling cell (or the marker of the call's entry in its `out`)."""
    out: Any = None
    """The ipywidgets Output the call shows in (`output=`), else None: the calling cell."""
    shown: Any = None
    """The box shown now (None while the display holds text)."""
    status_shown: bool = False
    """The `Call` handle was displayed (under `display_id + "-status"`)."""
    future: concurrent.futures.Future[Any] | None = None
    pending: set[PendingRequest] = field(default_factory=set)
    requests: list[PendingRequest] = field(default_factory=list)
    """Every request of this call, answered or not (to close views left open when the call ends)."""
    interrupted: bool = False
    why: str = ""
    """Why it was interrupted (for the forms' closing line)."""
    schema_error: SchemaError | None = None
    hinted: bool = False
    """The mode="legacy" hint was shown for this call."""
    started: float = field(default_factory=time.monotonic)
    think_total: float = 0.0
    think_since: float | None = None
    progress: tuple[float, float | None, str | None] | None = None
    """The newest progress not yet shown (client thread -> main thread, under `lock`)."""
    logs: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_KEEP))
    """Log lines not yet shown (under `lock`)."""
    log_count: int = 0
    """How many log messages arrived since the last update (some may have left `logs`)."""
    flush_due: bool = False
    flushed_at: float = 0.0
    ended: bool = False
    """The call's display was turned into text: later progress and logs have nowhere to go."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    context: contextvars.Context | None = None
    """The calling cell's context (taken in `_begin`): what the call shows later is sent as that cell's."""

    def describe(self) -> str:
        return f"{self.kind} {self.name!r} on {self.server.name!r}"

    def post(self, fn: Callable[[], None]) -> None:
        """`kernel.post(fn)`, run in the calling cell's context.

        ipykernel 7 keeps the message a cell answers in context variables: a callback posted from the client
        thread would otherwise send its display updates as replies to an older message, which frontends that
        follow replies by message (nbclient, Voila) drop.
        """
        context = self.context
        kernel.post(fn if context is None else partial(_run_in, context, fn))

    def status_line(self) -> str:
        """A background call's state in one line: running, then how it ended (with the result's text)."""
        fut = self.future
        if fut is None or not fut.done():
            return f"{self.describe()}: running"
        if fut.cancelled():
            text = "cancelled"
        elif fut.exception() is not None:
            text = f"failed: {_describe_exc(fut.exception())}"  # type: ignore[arg-type]
        else:
            text = "done" + _result_summary(fut.result())
            if (self.server.protocol_version or "") >= _MODERN and _tool_needs_legacy(fut.result()):
                text += f". {_LEGACY_HINT}"
        return _clip(f"{self.describe()}: {text}", 300)

    def ending(self) -> Literal["done", "failed", "cancelled"]:
        fut = self.future
        if fut is None or not fut.done():
            return "cancelled"  # given up on before it ended (interrupted)
        if fut.cancelled():
            return "cancelled"
        if fut.exception() is not None or getattr(fut.result(), "is_error", False):
            return "failed"  # a tool error result is a failed call to the person watching it
        return "done"

    def add(self, request: PendingRequest) -> None:
        with self.lock:
            if not self.pending:
                self.think_since = time.monotonic()
            self.pending.add(request)
            self.requests.append(request)

    def discard(self, request: PendingRequest) -> None:
        with self.lock:
            if request not in self.pending:
                return
            self.pending.discard(request)
            if not self.pending and self.think_since is not None:
                self.think_total += time.monotonic() - self.think_since
                self.think_since = None

    def busy_seconds(self) -> float:
        """Time since the call started, minus the time a question was waiting for its answer."""
        with self.lock:
            now = time.monotonic()
            think = self.think_total + (now - self.think_since if self.think_since is not None else 0.0)
            return now - self.started - think

    def waiting_for_answer(self) -> bool:
        with self.lock:
            return bool(self.pending)


class Call:
    """A call running in the background: displays its state, then its result.

    `await call` gives the result, `call.result()` blocks for it like `call_tool_sync`; either one, when
    interrupted, interrupts the call.
    """

    def __init__(self, record: _CallRecord, future: concurrent.futures.Future[Any]) -> None:
        self._record = record
        self._future = future

    @property
    def state(self) -> str:
        """One of: running, waiting for an answer, done, failed, cancelled."""
        fut = self._future
        if fut.cancelled():
            return "cancelled"
        if fut.done():
            return "failed" if fut.exception() is not None else "done"
        return "waiting for an answer" if self._record.waiting_for_answer() else "running"

    def done(self) -> bool:
        return self._future.done()

    def cancel(self) -> bool:
        """Stop the call (its open questions end as interrupted)."""
        if self._future.done():
            return False
        self._record.server._interrupt(self._record, "the call was cancelled")
        return True

    def result(self, timeout: float | None = None) -> Any:
        """Block until the call ends and return its result (raises what the call raised).

        Raises:
            TimeoutError: `timeout` passed first (the call keeps running).
        """
        return self._record.server._block(self._record, self._future, timeout=timeout)

    def exception(self) -> BaseException | None:
        """The call's error once done (None while running or when it succeeded)."""
        if not self._future.done() or self._future.cancelled():
            return None
        return self._future.exception()

    def add_done_callback(self, fn: Callable[[Call], None]) -> None:
        """Run `fn(call)` on the main thread once the call has ended (at once if it has)."""
        self._future.add_done_callback(lambda _: kernel.post(partial(fn, self)))

    def __await__(self) -> Generator[Any, None, Any]:
        return self._record.server._await(self._record, self._future).__await__()

    def __repr__(self) -> str:
        return f"<Call {self._record.describe()}: {self.state}>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return {"text/plain": repr(self)}

    def _ipython_display_(self) -> None:
        # Plain text kept up to date by id (no widget): it ends as the call's status line.
        record = self._record
        if kernel.kernel_support() == "none":
            print(repr(self))
            return
        kernel.display_as({"text/plain": record.status_line()}, record.display_id + "-status")
        record.status_shown = True


# --------------------------------------------------------------------------- targets and names


@dataclass
class _Target:
    """What to connect to, resolved from `connect(target, ...)`; repr-safe (no secrets)."""

    kind: Literal["stdio", "http", "inproc", "transport"]
    name: str
    where: str
    """For reprs: the command's program, the URL without query or credentials, or the server's name."""
    params: StdioServerParameters | None = None
    url: str | None = None
    obj: Any = None


_INTERPRETERS = {"python", "python3", "node", "npx", "uv", "uvx", "deno", "bun", "bunx", "pipx", "docker"}


def _command_name(argv: Sequence[str]) -> str:
    """A short, secret-free name for a command: the program, or what an interpreter runs."""
    program = PurePath(argv[0]).name
    base = program.split(".exe")[0]
    if base.rstrip("0123456789.") in _INTERPRETERS or base in _INTERPRETERS:
        rest = list(argv[1:])
        while rest:
            arg = rest.pop(0)
            if arg in ("-m", "run", "exec", "--from", "tool"):
                continue
            if arg.startswith("-"):
                continue
            if arg.startswith("@"):  # a scoped npm package, not a path
                return arg
            return PurePath(arg).name
    return program


def _url_name(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    host = parts.hostname or url
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    where = f"{parts.scheme}://{host}{parts.path}" + ("?…" if parts.query else "")
    return host, where


def _resolve_target(target: Any, env: Mapping[str, str] | None) -> _Target:
    if isinstance(target, str) and target.startswith(("http://", "https://")):
        host, where = _url_name(target)
        return _Target("http", host, where, url=target)
    if isinstance(target, (str, list, tuple)):
        argv = shlex.split(target) if isinstance(target, str) else [str(a) for a in target]
        if not argv:
            raise ValueError("an empty command line")
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(env) if env else None)
        return _Target("stdio", _command_name(argv), PurePath(argv[0]).name, params=params)
    if isinstance(target, StdioServerParameters):
        if env:
            target = target.model_copy(update={"env": {**(target.env or {}), **env}})
        argv = [target.command, *target.args]
        return _Target("stdio", _command_name(argv), PurePath(target.command).name, params=target)
    from mcp.server import Server as LowLevelServer
    from mcp.server.mcpserver import MCPServer

    if isinstance(target, (MCPServer, LowLevelServer)):
        name = str(getattr(target, "name", None) or "in-process")
        return _Target("inproc", name, f"in-process {name!r}", obj=target)
    if hasattr(target, "__aenter__"):  # an SDK Transport
        return _Target("transport", type(target).__name__, type(target).__name__, obj=target)
    raise TypeError(
        f"cannot connect to a {type(target).__name__}: pass a command line, an http(s) URL, "
        "StdioServerParameters or an MCP server object"
    )


# --------------------------------------------------------------------------- display helpers (main thread)


class _Deferred:
    """What `_interrupt_deferred` saw: true once SIGINT arrived inside the block."""

    def __init__(self) -> None:
        self.hit = False

    def __bool__(self) -> bool:
        return self.hit


@contextlib.contextmanager
def _interrupt_deferred() -> Generator[_Deferred, None, None]:
    """Hold SIGINT back for the block (main thread only); the caller raises it afterwards if it came."""
    deferred = _Deferred()
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield deferred  # not ours to hold back (a handler set outside Python cannot be put back)
        return
    try:
        previous = signal.signal(signal.SIGINT, lambda *_: setattr(deferred, "hit", True))
    except (ValueError, OSError):  # no signals here (embedded interpreters)
        yield deferred
        return
    try:
        yield deferred
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_in(context: contextvars.Context, fn: Callable[[], None]) -> None:
    context.copy().run(fn)  # a copy: the same context may already be entered (a pump inside the cell)


def _display(obj: Any) -> None:
    kernel.display(obj)


def _label(text: str) -> Any:
    import ipywidgets as w

    return w.Label(value=_clip(text, 500))


def _show_call(record: _CallRecord, bundle: dict[str, Any]) -> None:
    """Show `bundle` as the call's output, replacing what the call showed before (main thread).

    In a cell: an update of the display made when the call started. In an `output=` widget: the call's
    entry in its outputs (found by its marker), appended the first time.
    """
    out = record.out
    if out is None:
        kernel.display_as(bundle, record.display_id, update=True)
        return
    entry = {
        "output_type": "display_data",
        "data": bundle,
        "metadata": {"mcp_widgets_call": record.display_id},
    }
    outputs = list(out.outputs)
    for i, old in enumerate(outputs):
        if (
            isinstance(old, Mapping)
            and (old.get("metadata") or {}).get("mcp_widgets_call") == record.display_id
        ):
            outputs[i] = entry
            break
    else:
        outputs.append(entry)
    out.outputs = tuple(outputs)


def _log_line(params: mcp_types.LoggingMessageNotificationParams) -> str:
    """One line of a server log message: level, logger, and the data (JSON unless it is a string)."""
    data = params.data
    if not isinstance(data, str):
        try:
            data = json.dumps(data, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            data = repr(data)
    source = f" {params.logger}" if params.logger else ""
    return _clip(f"[{params.level}]{source}: {data}", 2000)


def _scrubbed(record: _CallRecord, lines: list[str]) -> list[str]:
    """`lines` with what the person typed in this call's answers redacted (a server may echo it in logs)."""
    typed = _typed_pattern(record) if lines else None
    return [typed.sub(REDACTED, line) for line in lines] if typed is not None else lines


# --------------------------------------------------------------------------- the server object


class Server:
    """A connected MCP server. Create it with `connect` / `connect_sync`.

    Attributes:
        name: The name we know it by: `name=`, else the URL's host or the command.
        declared_name: What the server calls itself (its `serverInfo.name`), or None.
        protocol_version: The negotiated protocol version.
    """

    def __init__(
        self,
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
        output: ipywidgets.Output | None = None,
        transport: TransportName = "auto",
        log_level: str | None = DEFAULT_LOG_LEVEL,
    ) -> None:
        if mode not in ("auto", "legacy") and not str(mode).startswith("20"):
            raise ValueError(f'mode must be "auto", "legacy" or a protocol version, not {mode!r}')
        if log_level is not None and log_level not in LOG_LEVELS:
            raise ValueError(f"log_level must be None or one of {', '.join(LOG_LEVELS)}, not {log_level!r}")
        self._target = _resolve_target(target, env)
        if transport in ("http", "sse") and self._target.kind != "http":
            raise ValueError(f"transport={transport!r} needs an http(s) URL")
        self.name = name or self._target.name
        self.declared_name: str | None = None
        self.protocol_version: str | None = None
        self.handler = handler
        self.mode = mode
        self.timeout = timeout
        self.answer_timeout = answer_timeout
        self.output = output
        self.log_level = log_level
        self._transport = transport
        self._via = "sse" if transport == "sse" else self._target.kind
        self._headers = dict(headers) if headers else {}
        self._auth = auth
        self._has_secrets = bool(headers or auth or env)
        self._client: Client | None = None
        self._state: Literal["new", "connecting", "connected", "closed", "lost"] = "new"
        self._calls: list[_CallRecord] = []  # client thread only
        self._pending: dict[PendingRequest, _CallRecord | None] = {}  # client thread only
        self._closing: asyncio.Event | None = None
        self._runner: concurrent.futures.Future[None] | None = None
        self._errlog: Any = None
        self._tools: ToolList | None = None
        self._resources: ResourceList | None = None
        self._prompts: PromptList | None = None
        self._info: ServerInfo | None = None
        self._history: HistoryPanel | None = None
        self._warned_legacy = False

    # -- connecting (client thread) -----------------------------------------------------------------------

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
        error.__cause__ = exc
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
            from . import url_flow as _url_flow

            _url_flow.on_message(self, message)  # notifications/elicitation/complete
        await asyncio.sleep(0)

    # -- elicitation (client thread) ----------------------------------------------------------------------

    def _guess_call(self) -> _CallRecord | None:
        """The call a 2025-11-25 request belongs to (the protocol does not say).

        One call in flight: that one. Several: the oldest that has no open question, else the newest.
        """
        calls = [c for c in self._calls if c.future is None or not c.future.done()]
        if not calls:
            return None
        if len(calls) == 1:
            return calls[0]
        idle = [c for c in calls if not c.waiting_for_answer()]
        return idle[0] if idle else calls[-1]

    async def _on_elicit(
        self, context: Any, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        record = _CURRENT.get() or self._guess_call()
        version = self.protocol_version or "2025-11-25"
        if isinstance(params, mcp_types.ElicitRequestURLParams):
            request = PendingRequest(
                server=self.name,
                kind="url",
                message=params.message,
                protocol_version=version,
                url=params.url,
                elicitation_id=params.elicitation_id,
            )
        else:
            request = PendingRequest(
                server=self.name,
                kind="form",
                message=params.message,
                protocol_version=version,
                schema=dict(params.requested_schema),
            )
        loop = asyncio.get_running_loop()
        if record is not None:
            record.add(request)
        self._pending[request] = record
        if record is not None:
            record.post(partial(self._present, request, record))
        else:
            kernel.post(partial(self._present, request, record))
        timer = None
        if self.answer_timeout is not None:
            timer = loop.call_later(
                self.answer_timeout, kernel.post, partial(self._answer_timed_out, request)
            )
        try:
            return await asyncio.wrap_future(request.reply)
        except asyncio.CancelledError:
            # Withdrawn (notifications/cancelled), the connection went away, or our call was stopped. Decide
            # which a moment later, when the call has seen the same event.
            loop.call_later(0.1, kernel.post, partial(self._withdrawn, request, record))
            raise
        finally:
            if timer is not None:
                timer.cancel()
            self._pending.pop(request, None)
            if record is not None:
                record.discard(request)

    # -- elicitation (main thread) ------------------------------------------------------------------------

    def _present(self, request: PendingRequest, record: _CallRecord | None) -> None:
        """Build the view of a request in the calling cell and decide who answers it."""
        if request.done():
            return
        if record is not None and record.interrupted:
            self._settle_without_view(request, Action.CANCEL, Reason.INTERRUPT, record.why, record=record)
            return
        if request.kind == "url":
            _url_request(self, request, record)
            return
        from ..widgets import ElicitationForm

        # Building a form opens a few dozen comms; an interrupt landing halfway (a blocked cell's pump runs
        # this) would leave a form nobody holds. It is taken just after, when the form can end "interrupted".
        with _interrupt_deferred() as deferred:
            try:
                # A handler usually answers at once: its form makes only what the handler drives.
                chosen = _pick_handler(self.handler)
                build = ElicitationForm._for_handler if chosen is not None else ElicitationForm
                form = build(
                    request.message,
                    request.schema or {},
                    server=self.name,
                    declared_name=self.declared_name,
                )
            except SchemaError as exc:
                self._refuse_schema(request, record, exc)
                return
            except Exception as exc:
                self._view_failed(request, record, exc, "form")
                return
            request.view = form
            # Done callbacks run in order: the answer goes to the server first, then the history notes it.
            form.add_done_callback(partial(self._view_done, request, record))
            self._record_view(request, record, form)
        try:
            if deferred:
                raise KeyboardInterrupt
            kernel.track_views(form)
            self._place(record, form)
            self._answer_with(chosen, request, record, form)
        except BaseException as exc:  # an interrupt can land here, inside a blocked cell's pump
            if isinstance(exc, KeyboardInterrupt):
                note = "the kernel was interrupted" + ("" if request.legacy else "; the call was dropped")
                form.finish(Action.CANCEL, reason=Reason.INTERRUPT, note=note)
            else:
                form.finish(Action.CANCEL, reason=Reason.ERROR, note=f"client error: {type(exc).__name__}")
            raise

    def _view_failed(
        self, request: PendingRequest, record: _CallRecord | None, exc: Exception, what: str
    ) -> None:
        """Building the view (a "form" or a URL card's "request") failed: answer an internal error."""
        log.exception("building the %s for a request from %s failed", what, self.name)
        outcome = Outcome(Action.CANCEL, Reason.ERROR, note=type(exc).__name__)
        error = mcp_types.ErrorData(
            code=mcp_types.INTERNAL_ERROR, message=f"the client could not show the {what}"
        )
        if request.settle(error, outcome):
            self._record_request(request, record, outcome)

    def _choose_answerer(self, request: PendingRequest, record: _CallRecord | None, card: Any) -> None:
        self._answer_with(_pick_handler(self.handler), request, record, card)

    def _answer_with(
        self,
        chosen: tuple[Handler, Reason, str] | None,
        request: PendingRequest,
        record: _CallRecord | None,
        card: Any,
    ) -> None:
        """Let the chosen handler answer (see `_pick_handler`), or the person when there is none."""
        if chosen is None:
            self._await_person(request, record, card)
            return
        handler, reason, by = chosen
        done = partial(self._handler_done, request, record, card, by)
        blocked = record is not None and record.style == "sync" and kernel.kernel_support() != "none"
        _HandlerRun(handler, card, reason, by, done, can_suspend=not blocked).start()

    def _handler_done(
        self,
        request: PendingRequest,
        record: _CallRecord | None,
        card: Any,
        by: str,
        exc: BaseException | None,
    ) -> None:
        if exc is not None:
            if card.finish(
                Action.CANCEL, reason=Reason.ERROR, by=by, note=f"handler failed: {type(exc).__name__}"
            ):
                self._place(record, f"Handler {by!r} failed: {_describe_exc(exc)}")
            log.warning("handler %r failed on a request from %s", by, self.name, exc_info=exc)
            return
        if card.outcome is None:  # left pending: the person answers, if anyone is looking
            self._await_person(request, record, card)

    def _await_person(self, request: PendingRequest, record: _CallRecord | None, card: Any) -> None:
        """Nobody has answered yet: wait for the person, unless no frontend ever shows the card."""
        _whole(card)
        support = kernel.kernel_support()
        if support == "none":
            from . import console as _console

            if _console.available():
                _console.ask(card)
                return
            card.finish(
                Action.DECLINE,
                reason=Reason.POLICY,
                by="headless",
                note="no notebook or terminal to ask in; pass handler= or set MCP_WIDGETS_HANDLER",
            )
            return
        if support == "background" and record is not None and record.style != "background":
            card.finish(
                Action.DECLINE,
                reason=Reason.POLICY,
                by="mcp-widgets",
                note="this kernel cannot deliver clicks to a running cell; use call_tool_background",
            )
            return
        _decline_if_unseen(card)

    def _view_done(self, request: PendingRequest, record: _CallRecord | None, card: Any) -> None:
        request.outcome = card.outcome
        if record is not None and record.interrupted and not request.legacy:
            return  # 2026-07-28: the call is dropped, nothing is sent
        request.settle(card.result, card.outcome)
        shown = (record is not None and record.panel is not None) or self.output is not None
        if not shown and hasattr(card, "spec") and kernel.kernel_support() == "none":
            # Plain python: nothing displays a form's closing line, so its models would only pile up.
            # (A URL card lives on after consent: it waits for the server to say it is done.)
            card.close()

    def _refuse_schema(self, request: PendingRequest, record: _CallRecord | None, exc: SchemaError) -> None:
        if record is not None and not request.legacy:
            record.schema_error = exc  # no request to answer on 2026-07-28: the caller gets the SchemaError
        outcome = Outcome(Action.DECLINE, Reason.INVALID_SCHEMA, note=str(exc))
        if request.settle(mcp_types.ErrorData(code=exc.code, message=str(exc)), outcome):
            self._record_request(request, record, outcome)
        self._place(record, f"{self.name} sent a request that cannot be shown: {exc}")

    def _settle_without_view(
        self,
        request: PendingRequest,
        action: Action,
        reason: Reason,
        note: str,
        *,
        record: _CallRecord | None = None,
        by: str | None = None,
    ) -> bool:
        """Answer a request that has no view (and record it); False when it was already settled."""
        outcome = Outcome(action, reason, by, note=note)
        if not request.settle(mcp_types.ElicitResult(action=action.value), outcome):
            return False
        self._record_request(request, record, outcome)
        return True

    def _record_view(self, request: PendingRequest, record: _CallRecord | None, view: Any) -> None:
        """Record the request a form or URL card shows in the process-wide history; the view finishes it."""
        source = (record.kind, record.name) if record is not None else None
        try:
            default_history().begin(view, source=source, started=request.created)
        except Exception:  # the history must never stop a question from being asked
            log.exception("recording a request from %s in the history failed", self.name)

    def _record_request(self, request: PendingRequest, record: _CallRecord | None, outcome: Outcome) -> None:
        """Record a request that ended without a view (refused, withdrawn or answered before one existed)."""
        try:
            default_history().begin_request(
                server=self.name,
                mode="url" if request.kind == "url" else "form",
                message=request.message,
                declared_name=self.declared_name,
                source=(record.kind, record.name) if record is not None else None,
                url=request.url,
                schema=request.schema,
                started=request.created,
                outcome=outcome,
            )
        except Exception:
            log.exception("recording a request from %s in the history failed", self.name)

    def _answer_timed_out(self, request: PendingRequest) -> None:
        note = f"no answer within {self.answer_timeout:g} s"
        view = request.view
        if view is not None:
            view.finish(Action.CANCEL, reason=Reason.TIMEOUT, note=note)
        else:
            record = self._pending.get(request)
            self._settle_without_view(request, Action.CANCEL, Reason.TIMEOUT, note, record=record)

    def _withdrawn(self, request: PendingRequest, record: _CallRecord | None) -> None:
        if record is not None and record.interrupted:
            reason, note = (
                Reason.INTERRUPT,
                record.why + ("" if request.legacy else "; the call was dropped"),
            )
        elif self._state == "lost":
            reason, note = Reason.WITHDRAWN, "the server disconnected"
        elif self._state == "closed" or (self._closing is not None and self._closing.is_set()):
            reason, note = Reason.WITHDRAWN, "the connection was closed"
        else:
            reason, note = Reason.WITHDRAWN, "the server withdrew the request"
        view = request.view
        if view is not None and view.outcome is None:
            view.finish(Action.CANCEL, reason=reason, note=note)
        if request.outcome is None:
            request.outcome = Outcome(Action.CANCEL, reason, note=note)
            if view is None:  # withdrawn before any view was built: only the history tells
                self._record_request(request, record, request.outcome)
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            request.reply.cancel()

    def _place(self, record: _CallRecord | None, widget: Any) -> None:
        """Show `widget` (or a line of text) in the call's panel (the calling cell, or its `output=`)."""
        panel = record.panel if record is not None else None
        if record is not None and panel is not None and not panel.ended:
            if isinstance(widget, str):
                panel.note(_clip(widget, 500))
            else:
                panel.place(widget)
            self._show_panel(record)
            return
        if self.output is None and kernel.kernel_support() == "none":
            return  # nothing could show it
        if isinstance(widget, str):
            widget = _label(widget)
        if self.output is not None:
            self.output.append_display_data(widget)
        else:
            _display(widget)

    # -- the call's display (main thread) -------------------------------------------------------------------

    def _show_panel(self, record: _CallRecord) -> None:
        """Show the panel's box in the call's display once it exists (it replaces the text shown before)."""
        box = record.panel.box if record.panel is not None else None
        if box is not None and record.shown is not box:
            record.shown = box
            _show_call(record, box._repr_mimebundle_())

    def _flush(self, record: _CallRecord) -> None:
        """Show the progress and log lines that arrived since the last update (posted by `_feed`)."""
        with record.lock:
            record.flush_due = False
            record.flushed_at = time.monotonic()
            if record.ended:
                return
            progress, record.progress = record.progress, None
            lines, count = list(record.logs), record.log_count
            record.logs.clear()
            record.log_count = 0
        panel = record.panel
        if panel is None or panel.ended:
            return
        panel.update(progress, _scrubbed(record, lines), count=count)
        self._show_panel(record)

    def _close_call(self, record: _CallRecord) -> None:
        """The call ended: its display becomes plain text, and every widget model it made is closed.

        Open questions end first (`_end_views`); each question already sent its answer when it resolved,
        so closing its widgets loses nothing. Idempotent: the waiting cell and `_finished` both call it.
        """
        with record.lock:
            if record.ended:
                return
            record.ended = True
            progress, record.progress = record.progress, None
            lines, count = list(record.logs), record.log_count
            record.logs.clear()
        self._end_views(record)
        from . import url_flow as _url_flow

        _url_flow._flow(self).call_ended(record)  # URL cards waiting for their page end now, not later
        panel = record.panel
        if panel is None:
            return
        if panel.status is not None:
            panel.set_status(record.status_line())
        bundle = panel.end(record.ending(), progress, _scrubbed(record, lines), count=count)
        if record.shown is not None or bundle["text/plain"]:
            record.shown = None
            _show_call(record, bundle)
        if record.status_shown:
            kernel.display_as(
                {"text/plain": record.status_line()}, record.display_id + "-status", update=True
            )

    # -- progress and logs (client thread) -------------------------------------------------------------------

    def _feed(
        self, record: _CallRecord, progress: tuple[float, float | None, str | None] | None, line: str | None
    ) -> bool:
        """Buffer a progress notification or a log line for the call's panel; False once the call ended.

        At most one update is posted per FLUSH_INTERVAL: the panel shows the newest progress and every
        buffered line at once.
        """
        with record.lock:
            if record.ended or record.panel is None:
                return False
            if progress is not None:
                record.progress = progress
            if line is not None:
                record.logs.append(line)
                record.log_count += 1
            if record.flush_due:
                return True
            record.flush_due = True
            delay = max(0.0, record.flushed_at + FLUSH_INTERVAL - time.monotonic())
        _client_loop().call_soon_threadsafe(
            _client_loop().call_later, delay, record.post, partial(self._flush, record)
        )
        return True

    def _progress_callback(self, record: _CallRecord) -> Any:
        """The call's `progress_callback`, or None when nothing shows the call (the server is not asked)."""
        if record.panel is None:
            return None

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            self._feed(record, (progress, total, message), None)

        return on_progress

    async def _on_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        """A server log message: into the log of the call it belongs to, else the `mcp_widgets` logger.

        Messages below `log_level` are dropped here too: 2025-11-25 servers may ignore logging/setLevel.
        """
        wanted = self.log_level
        level = str(params.level)
        if wanted is None or (level in LOG_LEVELS and LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted)):
            return
        record = _CURRENT.get() or self._guess_call()
        text = _log_line(params)
        if record is not None:
            if self._feed(record, None, text):
                return
            text = _scrubbed(record, [text])[0]  # the panel scrubs its lines when it shows them
        log.log(_PY_LEVELS.get(level, logging.INFO), "%s: %s", self.name, text)

    async def _ask_for_logs(self, client: Client) -> None:
        """2025-11-25: ask once for log messages at `log_level` (2026-07-28 asks per request instead)."""
        level = self.log_level
        if level is None or (client.protocol_version or "") >= _MODERN:
            return
        if client.server_capabilities.logging is None:
            return
        try:
            with warnings.catch_warnings():  # deprecated as of 2026-07-28; still the 2025-11-25 way
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await asyncio.wait_for(client.set_logging_level(level), self.timeout or CONNECT_TIMEOUT)
        except Exception:
            log.debug("%s did not take logging/setLevel %s", self.name, level, exc_info=True)

    # -- calling (main thread) ----------------------------------------------------------------------------

    def _begin(
        self, kind: str, name: str, output: Any, *, style: Literal["await", "sync", "background"]
    ) -> _CallRecord:
        """A new call, anchored where it was made: a display in the calling cell (or an entry in `output`).

        Nothing but that display (empty text, or a background call's status line) exists until the call
        has something to show: then its panel's box replaces the text, and when the call ends the text
        comes back (`_close_call`).
        """
        self._require_connected()
        record = _CallRecord(self, kind, name, style, context=contextvars.copy_context())
        out = output if output is not None else self.output
        if out is None and (kernel.kernel_support() == "none" or kernel.in_comm_handler()):
            if kernel.in_comm_handler():
                log.warning(
                    "a call started from a widget callback has nowhere to show its forms: pass output= "
                    "(an ipywidgets Output) to connect() or to the call"
                )
            return record
        from ..widgets._call_panel import CallPanel

        status = record.status_line() if style == "background" else None
        record.panel = CallPanel(status=status)
        record.out = out
        if out is None:
            kernel.display_as({"text/plain": status or ""}, record.display_id)
        elif status is not None:
            _show_call(record, {"text/plain": status})
        return record

    def _launch(
        self, record: _CallRecord, fn: Callable[[Client], Awaitable[T]]
    ) -> concurrent.futures.Future[T]:
        future = _submit(self._call(record, fn))
        record.future = future
        future.add_done_callback(lambda _: record.post(partial(self._finished, record)))
        return future

    def _finished(self, record: _CallRecord) -> None:
        """Main thread, after a call ended: its display becomes text (see `_close_call`)."""
        self._close_call(record)

    async def _call(self, record: _CallRecord, fn: Callable[[Client], Awaitable[T]]) -> T:
        """Run one request on the client thread, bounded by `timeout` minus think time."""
        client = self._client
        if client is None:
            raise ConnectionClosedError(f"{self.name!r} is not connected", code=mcp_types.CONNECTION_CLOSED)
        _CURRENT.set(record)  # this task's own context: input-required rounds find their call through it
        self._calls.append(record)
        try:
            from . import url_flow as _url_flow  # -32042 (2025-11-25): the required pages, then one retry

            return await _url_flow.retrying(self, record, lambda: self._bounded(record, fn(client)))
        except MCPError as exc:
            error = self._error(exc, record)
            # A redacted error's cause would still quote the typed value in a traceback.
            raise error from (None if REDACTED in str(error) else exc)
        except BaseExceptionGroup as group:  # a callback raised inside an input-required round
            if record.schema_error is not None:
                raise record.schema_error from group
            raise
        finally:
            self._calls.remove(record)

    async def _bounded(self, record: _CallRecord, awaitable: Awaitable[T]) -> T:
        if self.timeout is None:
            return await awaitable
        task = asyncio.ensure_future(awaitable)
        try:
            while True:
                if record.waiting_for_answer():
                    wait = 0.25  # the person's think time is not counted: look again soon
                else:
                    wait = self.timeout - record.busy_seconds()
                    if wait <= 0:
                        break
                done, _ = await asyncio.wait({task}, timeout=wait)
                if done:
                    return task.result()
        except asyncio.CancelledError:
            task.cancel()
            raise
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        raise RequestTimeout(f"{record.describe()} got no answer within {self.timeout:g} s")

    def _error(self, exc: MCPError, record: _CallRecord) -> BaseException:
        if record.schema_error is not None:
            return record.schema_error
        code = exc.error.code
        message = exc.error.message
        if code == mcp_types.CONNECTION_CLOSED and self._closing is not None and self._closing.is_set():
            return ConnectionClosedError(
                f"{record.describe()} was stopped: the connection was closed", code=code, data=exc.error.data
            )
        if code == mcp_types.CONNECTION_CLOSED:
            self._connection_lost()
            return ConnectionClosedError(
                f"{record.describe()} failed: the server disconnected", code=code, data=exc.error.data
            )
        text = f"{record.describe()} failed: {message} (code {code})"
        modern = (self.protocol_version or "") >= _MODERN
        if modern and (
            _asks_the_legacy_way(message)
            or code == getattr(mcp_types, "MISSING_REQUIRED_CLIENT_CAPABILITY", None)
        ):
            text += f". {_LEGACY_HINT}"
        data = exc.error.data
        typed = _typed_pattern(record)
        if typed is not None and (typed.search(text) or typed.search(repr(data))):
            # The server's error quotes what the person typed (e.g. a validation error's input): drop it.
            return ServerError(typed.sub(REDACTED, text), code=code, data=_scrub(data, typed))
        return ServerError(text, code=code, data=data)

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

    def _interrupt(self, record: _CallRecord, why: str = "the kernel was interrupted") -> None:
        """The kernel was interrupted while waiting (or the call was cancelled): end the call cleanly.

        2025-11-25: open forms answer cancel, then the call is cancelled. 2026-07-28: the call is dropped
        at once (no retry), and its open forms say so.
        """
        record.interrupted = True
        record.why = why
        fut = record.future
        with record.lock:
            requests = sorted(record.pending, key=lambda r: r.id)
        legacy = (self.protocol_version or "") < _MODERN
        if fut is not None and not legacy:
            fut.cancel()
        for request in requests:
            view = request.view
            note = why + ("" if request.legacy else "; the call was dropped")
            if view is not None and view.outcome is None:
                view.finish(Action.CANCEL, reason=Reason.INTERRUPT, note=note)
            if request.legacy and not request.done():  # no view yet: the server still gets its answer
                self._settle_without_view(request, Action.CANCEL, Reason.INTERRUPT, note, record=record)
        if fut is not None and legacy:
            # After the answers: the callback sends "cancel" before the call itself is cancelled.
            _client_loop().call_soon_threadsafe(fut.cancel)

    async def _await(self, record: _CallRecord, future: concurrent.futures.Future[T]) -> T:
        try:
            return self._check_result(record, await kernel.wait_async(future))
        except (KeyboardInterrupt, asyncio.CancelledError):
            if not future.done():
                self._interrupt(record)
            raise
        finally:
            if future.done():
                self._close_call(record)

    def _block(
        self, record: _CallRecord, future: concurrent.futures.Future[T], *, timeout: float | None = None
    ) -> T:
        try:
            return self._check_result(record, kernel.wait_sync(future, timeout=timeout))
        except KeyboardInterrupt:
            if not future.done():
                self._interrupt(record)
            raise
        finally:
            if future.done():
                self._close_call(record)

    def _check_result(self, record: _CallRecord, result: T) -> T:
        """Pass `result` through; a tool error saying the server cannot ask on 2026-07-28 gets the hint.

        Such servers (fastmcp's `ctx.elicit`) report it as a tool error, not a protocol error, so the call
        still returns its result; the hint goes to the cell (and the log, once per server).
        """
        if record.hinted or (self.protocol_version or "") < _MODERN or not _tool_needs_legacy(result):
            return result
        record.hinted = True
        hint = f"{record.describe()} could not ask its question: {_LEGACY_HINT}"
        if not self._warned_legacy:
            self._warned_legacy = True
            log.warning("%s", hint)
        try:
            self._place(record, hint)
        except Exception:
            log.debug("showing the legacy-mode hint failed", exc_info=True)
        return result

    def _end_views(self, record: _CallRecord) -> None:
        """The call ended: end its questions still open at once (main thread).

        A withdrawn question's view is normally ended a moment later by a posted `_withdrawn`; without a
        kernel nothing runs posted work once the caller stops waiting, so it would stay pending forever.
        """
        for request in list(record.requests):
            view = request.view
            if view is not None and view.outcome is not None:
                continue
            if request.done():  # withdrawn (or settled without a view): say so now
                self._withdrawn(request, record)
            elif view is not None:  # nobody can use this answer any more
                view.finish(Action.CANCEL, reason=Reason.WITHDRAWN, note="the call ended without it")

    # -- the public calls ---------------------------------------------------------------------------------

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, output: Any = None
    ) -> mcp_types.CallToolResult:
        """Call a tool; its questions appear as forms in this cell; returns the tool's result.

        A server that can only ask mid-call (fastmcp's `ctx.elicit`) answers a 2026-07-28 connection with a
        tool error result, returned as is; the cell then shows (and the log says, once per server) to
        connect with mode="legacy".

        Raises:
            SchemaError: On 2026-07-28, the server asked with an invalid schema (nothing was sent back).
            ServerError: The server answered with a protocol error.
            ConnectionClosedError: The server went away during the call.
            RequestTimeout: No answer within `timeout=` (the person's think time not counted).
        """
        args = dict(arguments) if arguments is not None else None
        record = self._begin("tool", name, output, style="await")
        progress = self._progress_callback(record)
        future = self._launch(record, lambda c: c.call_tool(name, args, progress_callback=progress))
        return await self._await(record, future)

    def call_tool_sync(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, output: Any = None
    ) -> mcp_types.CallToolResult:
        """`call_tool` for synchronous code: blocks the cell, while clicks still reach the form.

        Raises:
            BlockingCallError: Inside a widget callback (use `call_tool_background` there), or on a kernel
                that cannot deliver clicks to a blocked cell.
        """
        _check_can_block()
        args = dict(arguments) if arguments is not None else None
        record = self._begin("tool", name, output, style="sync")
        progress = self._progress_callback(record)
        future = self._launch(record, lambda c: c.call_tool(name, args, progress_callback=progress))
        return self._block(record, future)

    def call_tool_background(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, output: Any = None
    ) -> Call:
        """Start a tool call and return at once with a `Call` handle (its forms still appear in this cell)."""
        args = dict(arguments) if arguments is not None else None
        record = self._begin("tool", name, output, style="background")
        progress = self._progress_callback(record)
        return Call(
            record, self._launch(record, lambda c: c.call_tool(name, args, progress_callback=progress))
        )

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None, *, output: Any = None
    ) -> mcp_types.GetPromptResult:
        """Get a prompt (questions the server asks on the way appear as forms, as for tools)."""
        args = dict(arguments) if arguments is not None else None
        record = self._begin("prompt", name, output, style="await")
        future = self._launch(record, lambda c: c.get_prompt(name, args))
        return await self._await(record, future)

    def get_prompt_sync(
        self, name: str, arguments: Mapping[str, str] | None = None, *, output: Any = None
    ) -> mcp_types.GetPromptResult:
        """`get_prompt` for synchronous code."""
        _check_can_block()
        args = dict(arguments) if arguments is not None else None
        record = self._begin("prompt", name, output, style="sync")
        return self._block(record, self._launch(record, lambda c: c.get_prompt(name, args)))

    async def read_resource(self, uri: str, *, output: Any = None) -> mcp_types.ReadResourceResult:
        """Read a resource (questions the server asks on the way appear as forms, as for tools)."""
        record = self._begin("resource", uri, output, style="await")
        future = self._launch(record, lambda c: c.read_resource(uri))
        return await self._await(record, future)

    def read_resource_sync(self, uri: str, *, output: Any = None) -> mcp_types.ReadResourceResult:
        """`read_resource` for synchronous code."""
        _check_can_block()
        record = self._begin("resource", uri, output, style="sync")
        return self._block(record, self._launch(record, lambda c: c.read_resource(uri)))

    async def _fetch_listing(self, client: Client, kind: Literal["tools", "resources", "prompts"]) -> None:
        """Fetch every page of one listing and keep it (client thread); none without the capability."""
        if getattr(client.server_capabilities, kind) is None:
            return
        if kind == "tools":
            self._tools = ToolList(await _all_pages(client.list_tools, "tools"))
        elif kind == "prompts":
            self._prompts = PromptList(await _all_pages(client.list_prompts, "prompts"))
        else:
            resources = await _all_pages(client.list_resources, "resources")
            try:
                templates = await _all_pages(client.list_resource_templates, "resource_templates")
            except MCPError:  # a server may list resources but not implement templates
                log.debug("listing the resource templates of %s failed", self.name, exc_info=True)
                templates = []
            self._resources = ResourceList([*resources, *templates])

    async def _relist(self, kind: Literal["tools", "resources", "prompts"]) -> None:
        self._require_connected()
        record = _CallRecord(self, "list", kind)
        await self._await(record, self._launch(record, lambda c: self._fetch_listing(c, kind)))

    async def list_tools(self) -> ToolList:
        """Fetch the tool listing again (also refreshes `tools`)."""
        await self._relist("tools")
        return self.tools

    async def list_resources(self) -> ResourceList:
        """Fetch the resources and resource templates again (also refreshes `resources`)."""
        await self._relist("resources")
        return self.resources

    async def list_prompts(self) -> PromptList:
        """Fetch the prompt listing again (also refreshes `prompts`)."""
        await self._relist("prompts")
        return self.prompts

    @property
    def tools(self) -> ToolList:
        """The tools listed when connecting (`await srv.list_tools()` refreshes); displays as a table."""
        return self._tools if self._tools is not None else ToolList()

    @property
    def resources(self) -> ResourceList:
        """The resources and resource templates listed when connecting; displays as a table.

        `await srv.list_resources()` refreshes; empty when the server has no resources capability.
        """
        return self._resources if self._resources is not None else ResourceList()

    @property
    def prompts(self) -> PromptList:
        """The prompts listed when connecting (`await srv.list_prompts()` refreshes); displays as a table."""
        return self._prompts if self._prompts is not None else PromptList()

    @property
    def info(self) -> ServerInfo:
        """Who the server is (name, title, version), the protocol version and its capabilities, and its
        instructions: as learned when connecting (still there after `close`)."""
        if self._info is None:
            self._require_connected()  # never connected: says so
        assert self._info is not None
        return self._info

    def form(self, name: str) -> ToolForm:
        """A form for the tool `name`: fill in its arguments, click Run, see the result below it.

        Raises:
            KeyError: The server lists no tool of that name (refresh with `await srv.list_tools()`).
        """
        from ..widgets._tool_form import tool_form

        return tool_form(self, name)

    @property
    def history(self) -> HistoryPanel:
        """A `HistoryPanel` of this server's questions (when, which call, outcome; never a value)."""
        panel = self._history
        if panel is None or getattr(panel, "_closed", False):
            from ..widgets import HistoryPanel

            panel = self._history = HistoryPanel(server=self.name)
        return panel

    @property
    def connected(self) -> bool:
        return self._state == "connected"

    # -- closing ------------------------------------------------------------------------------------------

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

    def __repr__(self) -> str:
        head = f"<Server {self.name!r}"
        if self.declared_name and self.declared_name != self.name:
            head += f" (calls itself {self.declared_name!r})"
        parts = [head, f"{self._via} {self._target.where}"]
        if self.protocol_version:
            parts.append(f"protocol {self.protocol_version}")
        if self._tools is not None:
            parts.append(f"{len(self._tools)} tools")
        if self._has_secrets:
            parts.append("credentials redacted")
        parts.append(self._state)
        return " · ".join(parts) + ">"


async def _all_pages(list_page: Callable[..., Awaitable[Any]], items: str) -> list[Any]:
    """Every item of a paginated listing (`list_page(cursor=...)`), bounded at 100 pages."""
    out: list[Any] = []
    cursor = None
    for _ in range(100):
        page = await list_page(cursor=cursor, cache_mode="refresh")
        out.extend(getattr(page, items))
        cursor = page.next_cursor
        if cursor is None:
            break
    return out


def _decline_if_unseen(card: Any) -> None:
    """In LOOK_GRACE seconds, decline `card` if it is still pending and no frontend has rendered it."""

    def check() -> None:
        # A view report may still wait behind a cell that kept the kernel busy: judge after delivering it.
        if card.outcome is None and not kernel.is_viewed(card):
            kernel.seen_by_now(card).add_done_callback(decide)

    def decide(seen: concurrent.futures.Future[bool]) -> None:
        if card.outcome is None and not seen.result():
            card.finish(
                Action.DECLINE,
                reason=Reason.POLICY,
                by="headless",
                note="no frontend showed the form; pass handler= or set MCP_WIDGETS_HANDLER",
            )

    loop = _client_loop()
    loop.call_soon_threadsafe(loop.call_later, LOOK_GRACE, kernel.post, check)


REDACTED = "[redacted]"
"""Stands in for a typed value quoted in a server's error."""


def _typed_pattern(record: _CallRecord) -> re.Pattern[str] | None:
    """A pattern matching what the person sent in this call's answers (values of 2+ characters), or None."""
    values: set[str] = set()
    for request in list(record.requests):
        content = getattr(getattr(request.view, "result", None), "content", None)
        if not isinstance(content, Mapping):
            continue
        for value in content.values():
            for item in value if isinstance(value, list) else [value]:
                if not isinstance(item, bool) and len(str(item)) >= 2:
                    values.add(str(item))
    if not values:
        return None
    # Whole tokens only, so a short value does not cut words of the message apart.
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


def _scrub(data: Any, typed: re.Pattern[str]) -> Any:
    """`data` (JSON-like) with every string match of `typed` replaced, and numbers equal to one dropped."""
    if isinstance(data, str):
        return typed.sub(REDACTED, data)
    if isinstance(data, Mapping):
        return {_scrub(k, typed): _scrub(v, typed) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_scrub(v, typed) for v in data]
    if isinstance(data, (int, float)) and not isinstance(data, bool) and typed.fullmatch(str(data)):
        return REDACTED
    return data


def _asks_the_legacy_way(text: str) -> bool:
    """True when an error text says the server wanted to ask with a mid-call request (2025-11-25 only)."""
    return any(marker in text for marker in _NO_BACK_CHANNEL)


def _tool_needs_legacy(result: Any) -> bool:
    """A tool error result saying the server could not ask mid-call (fastmcp's way of reporting it)."""
    content = getattr(result, "content", None)
    if not getattr(result, "is_error", False) or not isinstance(content, list):
        return False
    return any(isinstance(c, mcp_types.TextContent) and _asks_the_legacy_way(c.text) for c in content)


def _result_summary(result: Any) -> str:
    content = getattr(result, "content", None)
    if isinstance(content, list):
        texts = [c.text for c in content if isinstance(c, mcp_types.TextContent)]
        error = " (the tool reported an error)" if getattr(result, "is_error", False) else ""
        return f"{error}: {_clip(' '.join(texts), 200)}" if texts else error
    return ""


def _describe_exc(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    text = str(exc)
    return f"{type(exc).__name__}: {_clip(text, 300)}" if text else type(exc).__name__


def _check_can_block() -> None:
    """Refuse a blocking call where it would freeze (before the call starts, so nothing is left running)."""
    if _in_client_thread():
        raise MCPWidgetsError("a blocking call from inside the client thread (a handler?) would deadlock")
    from ..core.exceptions import BlockingCallError

    if kernel.in_comm_handler():
        raise BlockingCallError(
            "a blocking call inside a widget callback would freeze the kernel; use call_tool_background "
            "(with output=) instead"
        )
    if not kernel.blocking_supported():
        raise BlockingCallError(
            f"ipykernel {kernel.kernel_version()} cannot deliver widget clicks to a blocked cell; "
            "use call_tool_background and let the cell finish"
        )


# --------------------------------------------------------------------------- URL mode (seam)


def _url_request(server: Server, request: PendingRequest, record: _CallRecord | None) -> None:
    """URL-mode requests: a URL card, shown and answered like a form (main thread; see `_url_flow`)."""
    from . import url_flow as _url_flow

    _url_flow.present(server, request, record)


# --------------------------------------------------------------------------- transports


@contextlib.asynccontextmanager
async def _watched(transport: Any, on_end: Callable[[], None]) -> Any:
    """`transport`, telling `on_end` when the server's side of it ends (a stdio server exiting).

    On 2026-07-28 nothing is pending at the server while a person thinks, so without this a dead server is
    only noticed when the answer is sent. The session's read loop always waits on the read stream, so the
    end is seen as it happens.
    """
    async with transport as (read, write):
        yield _EndWatched(read, on_end), write


class _EndWatched:
    """A read stream that calls `on_end` when it ends: the same items, with no task or buffer in between
    (each would cost an event-loop turn per message)."""

    def __init__(self, stream: Any, on_end: Callable[[], None]) -> None:
        self._stream = stream
        self._on_end = on_end

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context`, which the SDK looks up on its streams
        return getattr(self._stream, name)

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> _EndWatched:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _EndWatched:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._stream.__aexit__(*exc)


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: Mapping[str, str], auth: Any, *, sse: bool) -> Any:
    import httpx2

    hdrs = dict(headers)
    if isinstance(auth, str):
        hdrs["Authorization"] = f"Bearer {auth}"
        auth = None
    # A person may think for minutes while a response stream stays open: no short read timeout.
    timeout = httpx2.Timeout(30.0, read=3600.0)
    if sse:
        from mcp.client.sse import sse_client

        async with sse_client(url, headers=hdrs or None, auth=auth, sse_read_timeout=3600.0) as streams:
            yield streams
        return
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers=hdrs, auth=auth, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


# --------------------------------------------------------------------------- connect


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
        if kernel.in_comm_handler() or _in_client_thread():
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
