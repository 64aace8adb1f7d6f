"""`CallRecord`: one call in flight (tools/call, prompts/get, resources/read, a listing), the noun every part
of a server shares about a call: how its caller waits, what it shows, its questions, how it ended. The call
running in this context is `CURRENT_CALL`; what sends a request that is no call (a completion, a watch's read)
names itself with `sent_by`. Also: how a call's failure and a tool's "ask the legacy way" result read."""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import itertools
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import mcp_types

from .. import kernel
from ..core.exceptions import SchemaError
from ..core.protocol import is_modern
from ..core.redaction import strip_url_secrets
from ..core.requests import PendingRequest
from ..core.text import LOG_KEEP, clip_line
from .privacy import scrubbed_line

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

if TYPE_CHECKING:
    import asyncio

    import ipywidgets

    from ..widgets import CallPanel
    from .context import ServerContext

__all__ = [
    "CURRENT_CALL",
    "INTERRUPTED",
    "LEGACY_HINT",
    "SENDER",
    "CallRecord",
    "CallStyle",
    "Ending",
    "asks_the_legacy_way",
    "describe_exc",
    "ending_of",
    "sent_by",
    "tool_needs_legacy",
]


_NO_BACK_CHANNEL = ("back-channel", "server-initiated requests")
"""How servers say they cannot ask mid-call on 2026-07-28 (SDK NoBackChannelError; fastmcp ctx.elicit)."""
LEGACY_HINT = (
    "This server asks its questions the 2025-11-25 way (elicitation/create during the call): "
    'connect with mode="legacy".'
)


INTERRUPTED = "the kernel was interrupted"
"""Why a call is interrupted unless said otherwise (`Runner.interrupt`)."""

CURRENT_CALL: contextvars.ContextVar[CallRecord | None] = contextvars.ContextVar(
    "mcp_widgets_call", default=None
)

SENDER: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "mcp_widgets_sender", default=None
)
"""What sends the requests of this context when it is no call: (a key of its own, what it is); the wire shows
each such request with its answer as a group of its own, named so."""

_SENT = itertools.count(1)


@contextlib.contextmanager
def sent_by(label: str) -> Iterator[None]:
    """The requests sent inside are one sender's, `label` ("completion of 'city' (prompt 'trip')"): a group
    of the wire of their own, not "other messages"."""
    token = SENDER.set((f"~sent-{next(_SENT)}", label))
    try:
        yield
    finally:
        SENDER.reset(token)


CallStyle = Literal["await", "sync", "background"]
"""How a call's caller waits: `await`, a blocking `_sync`, or not at all (`_background`, a `Call`)."""


Ending = Literal["done", "failed", "cancelled"]
"""How a call ended, as its line and `Call.state` say it."""


def ending_of(fut: concurrent.futures.Future[Any]) -> Ending:
    """How the call whose (done) future is `fut` ended: a tool error result is a failed call to the person
    watching it, whatever the protocol calls it (the future holds a result, not an exception)."""
    if fut.cancelled():
        return "cancelled"
    if fut.exception() is not None or getattr(fut.result(), "is_error", False):
        return "failed"
    return "done"


@dataclass(eq=False)
class CallRecord:
    """One call in flight (tools/call, prompts/get, resources/read, ...)."""

    ctx: ServerContext
    kind: str
    name: str
    style: CallStyle = "await"
    """How the caller waits: a blocked or awaiting cell on an unsupported kernel cannot receive clicks."""
    panel: CallPanel | None = None
    """The call's `CallPanel` (questions, progress, log), or None where nothing can show it."""
    display_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    """The display in the calling cell (or the marker of the call's entry in its `out`)."""
    cell: str | None = None
    """The cell that shows the call's display (its message id), when that is a cell's and not an `out`'s."""
    out: ipywidgets.Output | None = None
    """The ipywidgets Output the call shows in (`output=`), else None: the calling cell."""
    shown: ipywidgets.Widget | None = None
    """The call's line shown now (None while the display holds text)."""
    status_shown: bool = False
    """The `Call` handle was displayed (under `display_id + "-status"`)."""
    element: Any = None
    """marimo: the call's line as the UI element its cell shows (`Call.ui`), else None."""
    future: concurrent.futures.Future[Any] | None = None
    pending: set[PendingRequest] = field(default_factory=set)
    requests: list[PendingRequest] = field(default_factory=list)
    """Every request of this call, answered or not (to close views left open when the call ends)."""
    interrupted: bool = False
    why: str = ""
    """Why it was interrupted (for the forms' closing line)."""
    schema_error: SchemaError | None = None
    secrets: list[Any] = field(default_factory=list)
    """The values of the call's secret arguments (redacted like answers; never shown)."""
    hinted: bool = False
    """The mode="legacy" hint was shown for this call."""
    answered: list[Any] = field(default_factory=list)
    """The values sent in answered questions no longer in `requests` (to redact them; never shown)."""
    typed_arguments: bool = False
    """Its arguments are what a person typed (a tool form, an app): the wire keeps only their names."""
    typed_inputs: list[Any] = field(default_factory=list)
    """A tool form's argument values: the wire redacts a server's echo of them (never shown)."""
    asked: int = 0
    """Questions the server asked in this call (bounded by `max_questions`)."""
    stopped: BaseException | None = None
    """Why the client stopped the call (raised to the caller instead of the cancellation)."""
    task: asyncio.Task[Any] | None = None
    """The asyncio task running the call's request (client thread), to stop it."""
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
    on_status: Callable[[], None] | None = None
    """Shows `status_line()` again (main thread): posted when the call starts or stops waiting."""
    app: Any = None
    """The bridge of the app shown under the call (a tool with an MCP App), told when the call ends."""
    shows_result: bool = True
    """A background call shows its result under its status line (not one its app made: the app shows it)."""

    def describe(self) -> str:
        return f"{self.kind} {self.name!r} on {self.ctx.name!r}"

    def interrupt_note(self, legacy: bool) -> str:
        """The note of a question this call's interruption ended: what its reason ("the kernel was
        interrupted") does not say already, and that a 2026-07-28 call was dropped."""
        parts = ("" if self.why == INTERRUPTED else self.why, "" if legacy else "the call was dropped")
        return "; ".join(p for p in parts if p)

    def post(self, fn: Callable[[], None]) -> None:
        """`kernel.post(fn)`, run in the calling cell's context.

        ipykernel 7 keeps the message a cell answers in context variables: a callback posted from the client
        thread would otherwise send its display updates as replies to an older message, which frontends that
        follow replies by message (nbclient, Voila) drop.
        """
        context = self.context
        kernel.post(fn if context is None else partial(_run_in, context, fn))

    def status_line(self) -> str:
        """A background call's state in one line: running, waiting for an answer, then how it ended.

        The result is not in it (the call's display shows it under this line, a tool form in its result area).
        """
        fut = self.future
        if fut is None or not fut.done():
            text = "waiting for an answer" if self.waiting_for_answer() else "running"
        elif fut.cancelled():
            text = "cancelled"
        elif fut.exception() is not None:
            text = f"failed: {describe_exc(fut.exception())}"  # type: ignore[arg-type]
        else:
            text = "done"
            if getattr(fut.result(), "is_error", False):
                text += " (the tool reported an error)"
            if is_modern(self.ctx.learned.protocol_version) and tool_needs_legacy(fut.result()):
                text += f". {LEGACY_HINT}"
        return clip_line(scrubbed_line(self, f"{self.describe()}: {text}"), 300)

    def ending(self) -> Ending:
        fut = self.future
        if fut is None or not fut.done():
            return "cancelled"  # given up on before it ended (interrupted)
        return ending_of(fut)

    def add(self, request: PendingRequest) -> bool:
        """Count `request` as this call's; False once the call's display ended (it is not the call's)."""
        with self.lock:
            if self.ended:
                return False
            first = not self.pending
            if first:
                self.think_since = time.monotonic()
            self.pending.add(request)
            self.requests.append(request)
        if first:
            self._status_changed()
        return True

    def discard(self, request: PendingRequest) -> None:
        with self.lock:
            if request not in self.pending:
                return
            self.pending.discard(request)
            last = not self.pending
            if last and self.think_since is not None:
                self.think_total += time.monotonic() - self.think_since
                self.think_since = None
        if last:
            self._status_changed()

    def _status_changed(self) -> None:
        """Running <-> waiting for an answer: show the status line again (from any thread)."""
        if self.on_status is not None:
            self.post(self.on_status)

    def busy_seconds(self) -> float:
        """Time since the call started, minus the time a question was waiting for its answer."""
        with self.lock:
            now = time.monotonic()
            think = self.think_total + (now - self.think_since if self.think_since is not None else 0.0)
            return now - self.started - think

    def waiting_for_answer(self) -> bool:
        with self.lock:
            return bool(self.pending)


def _run_in(context: contextvars.Context, fn: Callable[[], None]) -> None:
    context.copy().run(fn)  # a copy: the same context may already be entered (a pump inside the cell)


def asks_the_legacy_way(text: str) -> bool:
    """True when an error text says the server wanted to ask with a mid-call request (2025-11-25 only)."""
    return any(marker in text for marker in _NO_BACK_CHANNEL)


def tool_needs_legacy(result: Any) -> bool:
    """A tool error result saying the server could not ask mid-call (fastmcp's way of reporting it)."""
    content = getattr(result, "content", None)
    if not getattr(result, "is_error", False) or not isinstance(content, list):
        return False
    return any(isinstance(c, mcp_types.TextContent) and asks_the_legacy_way(c.text) for c in content)


def describe_exc(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    text = strip_url_secrets(str(exc))
    return f"{type(exc).__name__}: {clip_line(text, 300)}" if text else type(exc).__name__
