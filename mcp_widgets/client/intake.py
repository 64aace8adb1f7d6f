"""Elicitation intake: a server's question becomes a `PendingRequest`, then a form or URL card in the cell."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types

from .. import kernel
from ..core.exceptions import SchemaError
from ..core.history import default_history
from ..core.outcome import Action, Outcome, Reason
from ..core.protocol import LEGACY
from ..core.requests import PendingRequest
from . import tasks, url_flow
from .answering import pick_handler
from .calls import _CURRENT

if TYPE_CHECKING:
    from .calls import _CallRecord
    from .server import Server


log = logging.getLogger("mcp_widgets")


def _url_request(server: Server, request: PendingRequest, record: _CallRecord | None) -> None:
    """URL-mode requests: a URL card, shown and answered like a form (main thread; see `url_flow`)."""
    url_flow.present(server, request, record)


class IntakeMixin:
    """`Server`: take a question in (client thread), show it (main thread), settle and record it."""

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
        record = tasks.call_of(self, context) or _CURRENT.get() or self._guess_call()
        version = self.protocol_version or LEGACY
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
        with kernel.interrupt_deferred() as deferred:
            try:
                # A handler usually answers at once: its form makes only what the handler drives.
                chosen = pick_handler(self.handler)
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
