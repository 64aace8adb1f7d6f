"""Running a call: start it where it was made, bound it in time, wait for it, interrupt it, map its errors."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import logging
import sys
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import mcp_types
from mcp import Client
from mcp.client import InputRequiredRoundsExceededError
from mcp.shared.exceptions import MCPError

from .. import kernel
from ..core.exceptions import (
    BlockingCallError,
    ConnectionClosedError,
    MCPWidgetsError,
    RequestTimeout,
    ServerError,
    TooManyQuestions,
    brief,
)
from ..core.outcome import Action, Reason
from ..core.protocol import is_modern
from ..core.signin_addresses import RECONNECT_TO_SIGN_IN, SignInError
from ..core.text import shorten, shown

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

from . import prechecks
from .call import Call
from .display import show_call
from .privacy import foreign, quotes_typed, redacted_error, resource_name, scrubbed_line, secret_arguments
from .questions import bounds, rounds, url_mode
from .record import (
    CURRENT_CALL,
    INTERRUPTED,
    LEGACY_HINT,
    CallRecord,
    CallStyle,
    asks_the_legacy_way,
    tool_needs_legacy,
)
from .runtime import RUNTIME
from .tasks import experimental as tasks

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT

    from .apps.host import AppHost
    from .connection import Connection
    from .context import ServerContext
    from .display import CallDisplay
    from .in_flight import CallsInFlight
    from .questions.endings import Endings
    from .questions.rounds import Rounds

log = logging.getLogger("mcp_widgets")


T = TypeVar("T")
E = TypeVar("E", bound=BaseException)
ERROR_KEEP = 2000
_SDK_CLOSED = "Connection closed"
"""The message of the error the SDK makes itself when the connection ends; a server's own -32000 (the
first code of JSON-RPC's server-error range, which servers use freely) is an error like any other."""
"""Characters of a server's error message kept in the exception raised for it."""

Arguments = Mapping[str, Any] | None
Request = Callable[[Client, "ProgressFnT | None"], Awaitable[T]]
"""One request of a call: `request(client, progress_callback)` (the callback is None when nothing shows)."""


def _stopped(record: CallRecord, exc: E, interrupted: bool = False) -> E:
    """The interrupt (or cancellation) of a waiting caller as one line: the person's own doing, no fault;
    `interrupted`: a SIGINT reached the wait (an awaiting cell sees it as a CancelledError only)."""
    stopped = INTERRUPTED if interrupted or isinstance(exc, KeyboardInterrupt) else "it was cancelled"
    why = record.why if record.interrupted else stopped
    return brief(exc, f"{record.describe()} was stopped: {why}")


class _UnlistedToolWarning(logging.Filter):
    """The SDK warns "Tool x not listed by server, cannot validate any structured content" when a tool the
    server does not list is called; our calls say so on the call's line (`_unlisted`) instead. Only records
    from our client thread are dropped: other SDK clients in the process keep the warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        unlisted = "not listed by server, cannot validate" in record.getMessage()
        return not (unlisted and RUNTIME.in_client_thread())


logging.getLogger("client").addFilter(_UnlistedToolWarning())  # the SDK session's logger: "client"


def _unlisted(server: str, name: str) -> str:
    return (
        f"{server!r} does not list the tool {name!r} (any more: its tools were read on connecting); the call "
        "is sent as asked, and its result is not checked against an output schema"
    )


def _check_can_block() -> None:
    """Refuse a blocking call where it would freeze (before the call starts, so nothing is left running)."""
    if RUNTIME.in_client_thread():
        raise MCPWidgetsError("a blocking call from inside the client thread (a handler?) would deadlock")
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


class Runner:
    """A server's calls: start one where it was made, bound it in time, wait for it, interrupt it, map its
    errors. The server's settings (`timeout`, `output`) and protocol version are read from `ctx`."""

    def __init__(
        self,
        ctx: ServerContext,
        connection: Connection,
        display: CallDisplay,
        apps: AppHost,
        *,
        calls: CallsInFlight,
        open_tasks: tasks.OpenTasks,
        flow: url_mode.UrlFlow,
        rounds: Rounds,
        endings: Endings,
    ) -> None:
        self.ctx = ctx
        self.connection = connection
        self.display = display
        self.apps = apps
        self.calls = calls
        """The calls in flight: a call's request is added when it starts, removed when it ends."""
        self.open_tasks = open_tasks
        self.flow = flow  # a -32042 call asks for the required pages, then retries once
        self.rounds = rounds  # a late answer refused ends the call as expired
        self.endings = endings  # an interrupted call's open questions end here
        self._warned_legacy = False

    # -- the three ways a caller waits ---------------------------------------------------------------------
    async def run(
        self, kind: str, name: str, output: Any, request: Request[T], arguments: Arguments = None
    ) -> T:
        """A call the caller awaits (`await srv.call_tool(...)`)."""
        record, future = self._start(kind, name, output, "await", request, arguments)
        return await self.wait(record, future)

    def run_sync(
        self, kind: str, name: str, output: Any, request: Request[T], arguments: Arguments = None
    ) -> T:
        """A call that blocks the caller (`srv.call_tool_sync(...)`)."""
        _check_can_block()
        record, future = self._start(kind, name, output, "sync", request, arguments)
        return self.block(record, future)

    def run_background(
        self,
        kind: str,
        name: str,
        output: Any,
        request: Request[Any],
        arguments: Arguments = None,
        *,
        typed: bool = False,
    ) -> Call:
        """A call that returns at once with its handle (`srv.call_tool_background(...)`); `typed`: its
        arguments are what a person typed (a tool form)."""
        record, future = self._start(kind, name, output, "background", request, arguments, typed=typed)
        return Call(record, future, self)

    def _start(
        self,
        kind: str,
        name: str,
        output: Any,
        style: CallStyle,
        request: Request[T],
        arguments: Arguments,
        *,
        from_app: bool = False,
        typed: bool = False,
    ) -> tuple[CallRecord, concurrent.futures.Future[T]]:
        record = self.begin(
            kind, name, output, style=style, arguments=arguments, from_app=from_app, typed=typed
        )
        progress = self.display.progress_callback(record)
        return record, self.launch(record, lambda client: request(client, progress))

    # -- the steps -----------------------------------------------------------------------------------------
    def begin(
        self,
        kind: str,
        name: str,
        output: Any,
        *,
        style: CallStyle,
        arguments: Arguments = None,
        from_app: bool = False,
        typed: bool = False,
    ) -> CallRecord:
        """A new call, anchored where it was made: a display in the calling cell (or an entry in `output`).

        Nothing but that display (empty text, or a background call's status line) exists until the call
        has something to show: then its panel's line (one model) replaces the text, and when the call ends
        the text comes back (`CallDisplay.close_call`).
        """
        self.connection.require_connected()
        if kind == "prompt":  # what can be known before sending is said before sending
            prechecks.check_prompt(self.ctx, name, arguments)
        elif kind == "resource":
            prechecks.check_uri(self.ctx, name)
        if kind == "resource":  # a filled-in URI is an argument: history and errors keep its template
            name = resource_name(self.ctx.learned.resources or (), name)
        record = CallRecord(self.ctx, kind, name, style, context=contextvars.copy_context())
        record.secrets = secret_arguments(self.ctx.learned.tools or (), kind, name, arguments)
        record.typed_arguments = typed or from_app
        # (a list of text too: a tool form's one-per-line field, a template's `{/path*}`)
        values = [i for v in (arguments or {}).values() for i in (v if isinstance(v, (list, tuple)) else [v])]
        typed_in = [v for v in values if isinstance(v, str) and v]
        if from_app:  # what the person typed into an app: kept out of every line and error, as answers are
            record.answered.extend(typed_in)
        elif typed:  # a tool form's values stay in its errors (the person sees them there) but not the wire
            record.typed_inputs.extend(typed_in)
        out = output if output is not None else self.ctx.settings.output
        if out is None and (kernel.kernel_support() == "none" or kernel.in_comm_handler()):
            if style == "background" and not kernel.in_comm_handler():
                self.display.show_in_marimo(record)  # only there: plain Python shows nothing
            elif kernel.in_comm_handler():
                log.warning(
                    "a call started from a widget callback has nowhere to show its forms: pass output= "
                    "(an ipywidgets Output) to connect() or to the call"
                )
            elif style == "background":
                self.display.show_in_marimo(record)  # marimo only: plain Python shows nothing
            return record
        from ..widgets import CallPanel

        status = record.status_line() if style == "background" else None
        record.panel = CallPanel(status=status)
        if status is not None:
            record.on_status = partial(self.display.show_status, record)
        record.out = out
        if out is None:
            kernel.display_as({"text/plain": status or ""}, record.display_id)
            record.cell = kernel.running_cell()
        elif status is not None:
            show_call(record, {"text/plain": status})
        if kind == "tool" and not any(tool.name == name for tool in self.ctx.learned.tools or ()):
            # Said once, on the call, instead of the SDK's "not listed by server, cannot validate" warning
            # (kept off the log: `UnlistedToolWarning`). The call is still sent: the server decides.
            self.display.place(record, _unlisted(self.ctx.name, name))
        if from_app:
            record.shows_result = False  # a call an app made: the app shows its result
        else:  # a tool with an MCP App: shown under this line
            self.apps.begin(record, arguments, self.app_call)
        return record

    def app_call(self, name: str, arguments: dict[str, Any] | None, output: Any) -> Call:
        """A tool call an app made: a background call shown in `output` (under the app)."""
        request = tasks.tool_call(self.ctx, self.open_tasks, self.display, name, arguments, task=False)
        record, future = self._start("tool", name, output, "background", request, arguments, from_app=True)
        return Call(record, future, self)

    def launch(
        self, record: CallRecord, fn: Callable[[Client], Awaitable[T]]
    ) -> concurrent.futures.Future[T]:
        """Run `fn(client)` on the client thread as `record`'s call; its display ends when it does."""
        future = RUNTIME.submit(self._call(record, fn))
        record.future = future
        future.add_done_callback(lambda _: record.post(partial(self._ended, record)))
        return future

    def _ended(self, record: CallRecord) -> None:
        self.display.close_call(record)
        if record.app is not None:
            self.apps.ended(record)

    async def _call(self, record: CallRecord, fn: Callable[[Client], Awaitable[T]]) -> T:
        """Run one request on the client thread, bounded by `timeout` minus think time."""
        client = self.connection.client
        if client is None:
            raise ConnectionClosedError(
                f"{self.ctx.name!r} is not connected", code=mcp_types.CONNECTION_CLOSED
            )
        CURRENT_CALL.set(record)  # this task's own context: input-required rounds find their call through it
        record.task = asyncio.current_task()  # for stopping it past `max_questions`
        self.calls.add(record)
        try:
            # -32042 (2025-11-25): the required pages, then one retry
            return await url_mode.retrying(self.flow, record, lambda: self._bounded(record, fn(client)))
        except MCPError as exc:
            expired = rounds.expired_error(self.rounds, record, exc)
            error = expired if expired is not None else self._error(exc, record)
            # The server may quote what was typed.
            clean = None if expired is not None else redacted_error(record, error)
            if expired is not None or clean is not None:
                error = clean or error  # ours (expired: one line of our own words), raised below
            elif (raw := str(exc.error.message)) == shown(raw) and not quotes_typed(
                record,
                raw,
                exc.error.data,  # beyond the shortened message we show
            ):
                raise error from exc
            # else escaped: the raw cause would replay the server's terminal escapes in a traceback (ANSI)
        except BaseExceptionGroup as group:  # a callback raised inside an input-required round
            if record.schema_error is not None:
                raise record.schema_error from group
            replaced = foreign(record, group)
            if replaced is None:
                raise
            error = replaced
        except asyncio.CancelledError:
            if record.stopped is not None:  # stopped past max_questions: the caller learns why
                raise record.stopped from None
            raise
        except InputRequiredRoundsExceededError as exc:
            raise TooManyQuestions(
                f"{record.describe()} was stopped: the server answered input-required for more than "
                f"{exc.max_rounds} rounds (rounds are bounded by connect(max_questions=...), now "
                f"{self.ctx.settings.max_questions[0]} per call)"
            ) from None
        except Exception as exc:
            replaced = foreign(record, exc)  # pydantic's error, say: it quotes the server's payload
            if replaced is None:
                raise
            error = replaced
        finally:
            self.display.late.remember(record)  # its server's log lines may still quote it after the call
            self.calls.remove(record)
            self.rounds.ended(record)
        # Raised outside the handler: the server's words would stay in `__context__` (and a traceback).
        raise error from None

    async def _bounded(self, record: CallRecord, awaitable: Awaitable[T]) -> T:
        timeout = self.ctx.settings.timeout
        if timeout is None:
            return await awaitable
        task = asyncio.ensure_future(awaitable)
        try:
            while True:
                if record.waiting_for_answer():
                    wait = 0.25  # the person's think time is not counted: look again soon
                else:
                    wait = timeout - record.busy_seconds()
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
        raise RequestTimeout(f"{record.describe()} got no answer within {timeout:g} s")

    def _error(self, exc: MCPError, record: CallRecord) -> BaseException:
        if record.schema_error is not None:
            return record.schema_error
        if record.stopped is not None:
            return record.stopped
        code = exc.error.code
        data = exc.error.data
        if isinstance(data, dict) and isinstance(data.get(bounds.OVERSIZED), int):
            text = (
                f"{record.describe()} was stopped: the server asked {data[bounds.OVERSIZED]} questions in "
                f"one input-required round, refused as a whole (the bound is connect(max_questions=...), now "
                f"{bounds.largest(self.ctx)} in one round)"
            )
            log.warning("%s", text)
            record.post(partial(self.display.place, record, text))
            return TooManyQuestions(text)
        # A server's text: literal, bounded, redacted first (a cut could leave the start of a typed value).
        message = shorten(shown(scrubbed_line(record, exc.error.message)), ERROR_KEEP)
        closed = code == mcp_types.CONNECTION_CLOSED and exc.error.message == _SDK_CLOSED
        if closed and self.connection.closing_now:
            return ConnectionClosedError(
                f"{record.describe()} was stopped: the connection was closed", code=code, data=exc.error.data
            )
        refused = self.connection.take_refusal() if closed else None
        if refused is not None:  # the person declined signing in again: the request could not be sent
            self.connection.lost(declined=refused)
            return SignInError(
                f"{record.describe()} failed: {refused}; that ended the connection: {RECONNECT_TO_SIGN_IN}"
            )
        if closed:
            self.connection.lost()
            return ConnectionClosedError(
                f"{record.describe()} failed: the server disconnected", code=code, data=exc.error.data
            )
        text = f"{record.describe()} failed: {message} (code {code})"
        modern = is_modern(self.ctx.learned.protocol_version)
        if modern and (
            asks_the_legacy_way(message)
            or code == getattr(mcp_types, "MISSING_REQUIRED_CLIENT_CAPABILITY", None)
        ):
            text += f". {LEGACY_HINT}"
        return ServerError(text, code=code, data=exc.error.data)

    def interrupt(self, record: CallRecord, why: str = INTERRUPTED) -> None:
        """The kernel was interrupted while waiting (or the call was cancelled): end the call cleanly.

        2025-11-25: open forms answer cancel, then the call is cancelled. 2026-07-28: the call is dropped
        at once (no retry), and its open forms say so.
        """
        record.interrupted = True
        record.why = why
        fut = record.future
        with record.lock:
            requests = sorted(record.pending, key=lambda r: r.id)
        legacy = not is_modern(self.ctx.learned.protocol_version)
        if fut is not None and not legacy:
            fut.cancel()
        for request in requests:
            card = request.card
            note = record.interrupt_note(request.legacy)
            if card is not None and card.outcome is None:
                card.finish(Action.CANCEL, reason=Reason.INTERRUPT, note=note)
            if request.legacy and not request.done():  # no card yet: the server still gets its answer
                self.endings.settle_without_card(
                    request, Action.CANCEL, Reason.INTERRUPT, note, record=record
                )
            elif not request.legacy:
                # Dropped with its call: over now, not once the client's loop gets round to the call's
                # cancellation (on a loaded machine, after the next cell ran).
                request.reply.cancel()
        if fut is not None and legacy:
            # After the answers: the callback sends "cancel" before the call itself is cancelled.
            RUNTIME.loop().call_soon_threadsafe(fut.cancel)

    async def run_call(self, record: CallRecord, request: Callable[[Client], Awaitable[T]]) -> T:
        """Run `request` as the call `record` and wait for it (a listing fetched again, say)."""
        return await self.wait(record, self.launch(record, request))

    async def wait(self, record: CallRecord, future: concurrent.futures.Future[T]) -> T:
        """Await the call's result (an interrupt or cancellation interrupts the call)."""
        seen = kernel.interrupts()
        try:
            return self._check_result(record, await kernel.wait_async(future))
        except (KeyboardInterrupt, asyncio.CancelledError) as exc:
            if not future.done():
                self.interrupt(record)
            # The call may have ended just before the cancellation reached the cell (an interrupt that
            # landed in a form's answering): the person's interrupt is still what stopped it.
            raise _stopped(record, exc, interrupted=kernel.interrupts() != seen) from None
        finally:
            if future.done():
                self.display.close_call(record, returned=True)

    def block(
        self, record: CallRecord, future: concurrent.futures.Future[T], *, timeout: float | None = None
    ) -> T:
        """Block for the call's result, pumping clicks (an interrupt interrupts the call)."""
        try:
            return self._check_result(record, kernel.wait_sync(future, timeout=timeout))
        except KeyboardInterrupt as exc:
            if not future.done():
                self.interrupt(record)
            raise _stopped(record, exc) from None
        finally:
            if future.done():
                self.display.close_call(record, returned=True)

    def _check_result(self, record: CallRecord, result: T) -> T:
        """Pass `result` through; a tool error saying the server cannot ask on 2026-07-28 gets the hint.

        Such servers (fastmcp's `ctx.elicit`) report it as a tool error, not a protocol error, so the call
        still returns its result; the hint goes to the cell (and the log, once per server).
        """
        modern = is_modern(self.ctx.learned.protocol_version)
        if record.hinted or not modern or not tool_needs_legacy(result):
            return result
        record.hinted = True
        hint = f"{record.describe()} could not ask its question: {LEGACY_HINT}"
        if not self._warned_legacy:
            self._warned_legacy = True
            log.warning("%s", hint)
        try:
            self.display.place(record, hint)
        except Exception:
            log.debug("showing the legacy-mode hint failed", exc_info=True)
        return result
