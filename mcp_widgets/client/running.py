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
from typing import Any, Literal, TypeVar

import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError

from .. import kernel
from ..core.exceptions import (
    BlockingCallError,
    ConnectionClosedError,
    MCPWidgetsError,
    RequestTimeout,
    ServerError,
)
from ..core.outcome import Action, Reason
from ..core.protocol import is_modern

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

from . import url_flow
from .calls import _CURRENT, _LEGACY_HINT, _asks_the_legacy_way, _CallRecord, _tool_needs_legacy
from .display import _show_call
from .privacy import _redacted, _remember, _resource_name, _secrets
from .runtime import _client_loop, _in_client_thread, _submit

log = logging.getLogger("mcp_widgets")


T = TypeVar("T")


def _check_can_block() -> None:
    """Refuse a blocking call where it would freeze (before the call starts, so nothing is left running)."""
    if _in_client_thread():
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


class RunningMixin:
    """`Server`: the steps every public call shares (`_begin`, `_launch`, `_await` / `_block`, ...)."""

    def _begin(
        self,
        kind: str,
        name: str,
        output: Any,
        *,
        style: Literal["await", "sync", "background"],
        arguments: Mapping[str, Any] | None = None,
    ) -> _CallRecord:
        """A new call, anchored where it was made: a display in the calling cell (or an entry in `output`).

        Nothing but that display (empty text, or a background call's status line) exists until the call
        has something to show: then its panel's box replaces the text, and when the call ends the text
        comes back (`_close_call`).
        """
        self._require_connected()
        if kind == "resource":  # a filled-in URI is an argument: history and errors keep its template
            name = _resource_name(self, name)
        record = _CallRecord(self, kind, name, style, context=contextvars.copy_context())
        record.secrets = _secrets(self, kind, name, arguments)
        out = output if output is not None else self.output
        if out is None and (kernel.kernel_support() == "none" or kernel.in_comm_handler()):
            if kernel.in_comm_handler():
                log.warning(
                    "a call started from a widget callback has nowhere to show its forms: pass output= "
                    "(an ipywidgets Output) to connect() or to the call"
                )
            return record
        from ..widgets import CallPanel

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
            # -32042 (2025-11-25): the required pages, then one retry
            return await url_flow.retrying(self, record, lambda: self._bounded(record, fn(client)))
        except MCPError as exc:
            error = self._error(exc, record)
            clean = _redacted(record, error)  # the server's error may quote what the person typed
            if clean is None:
                raise error from exc
            error = clean
        except BaseExceptionGroup as group:  # a callback raised inside an input-required round
            if record.schema_error is not None:
                raise record.schema_error from group
            raise
        finally:
            _remember(record)  # its server's log lines may still quote it after the call
            self._calls.remove(record)
        # Raised outside the handler: the server's words would stay in `__context__` (and a traceback).
        raise error from None

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
        modern = is_modern(self.protocol_version)
        if modern and (
            _asks_the_legacy_way(message)
            or code == getattr(mcp_types, "MISSING_REQUIRED_CLIENT_CAPABILITY", None)
        ):
            text += f". {_LEGACY_HINT}"
        return ServerError(text, code=code, data=exc.error.data)

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
        legacy = not is_modern(self.protocol_version)
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
        if record.hinted or not is_modern(self.protocol_version) or not _tool_needs_legacy(result):
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
