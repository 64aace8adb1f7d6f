"""How a server's questions end: answered through their card, settled without one, timed out or withdrawn;
each written in the process-wide history (never a value). Forms (`intake`) and URL cards (`url_mode`) end
here alike; see docs/architecture.md for the path of one elicitation."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import Collection, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import mcp_types

from ... import kernel
from ...core.card import Card
from ...core.history import HistoryRecord, default_history
from ...core.outcome import Action, Outcome, Reason
from ...core.requests import PendingRequest

if TYPE_CHECKING:
    from ...widgets import ElicitationForm
    from ..context import ServerContext
    from ..display import LooseForms
    from ..record import CallRecord

__all__ = ["Endings"]

log = logging.getLogger("mcp_widgets")


class Endings:
    """One server's open questions and how each ends (see the module's docstring)."""

    def __init__(self, ctx: ServerContext, loose: LooseForms) -> None:
        self.ctx = ctx
        self.loose = loose
        """Answered forms shown outside any call: the newest few stay, closed with the server."""
        self.pending: dict[PendingRequest, CallRecord | None] = {}
        """The questions waiting for an answer, with their call (client thread only)."""

    def time_answers(self, requests: list[PendingRequest]) -> list[asyncio.TimerHandle]:
        """Cancel each request not answered within `answer_timeout` (client thread); cancel the timers."""
        limit = self.ctx.settings.answer_timeout
        if limit is None:
            return []
        loop = asyncio.get_running_loop()
        return [loop.call_later(limit, kernel.post, partial(self._answer_timed_out, r)) for r in requests]

    def withdraw_all(self, kept: Collection[CallRecord] = ()) -> None:
        """The connection went away (client thread): every open question ends as withdrawn (but those of
        the `kept` calls: a task's question lives in the server, answerable after a reconnect)."""
        for request, record in list(self.pending.items()):
            if record is not None and record in kept:
                continue
            kernel.post(partial(self.withdrawn, request, record))

    def card_failed(
        self, request: PendingRequest, record: CallRecord | None, exc: Exception, what: str
    ) -> None:
        """Building the card (a "form" or a URL card's "request") failed: answer an internal error."""
        log.exception("building the %s for a request from %s failed", what, self.ctx.name)
        outcome = Outcome(Action.CANCEL, Reason.ERROR, note=type(exc).__name__)
        error = mcp_types.ErrorData(
            code=mcp_types.INTERNAL_ERROR, message=f"the client could not show the {what}"
        )
        if request.settle(error, outcome):
            self.write_history(request, record, outcome)

    def card_done(self, request: PendingRequest, record: CallRecord | None, card: Card) -> None:
        if request.reply.cancelled():  # withdrawn just before the answer: nothing is sent
            request.outcome = Outcome(Action.CANCEL, *self.withdrawal(record))
            return self.put_away(record, card)
        request.outcome = card.outcome
        if record is not None and record.interrupted and not request.legacy:
            return self.put_away(record, card)  # 2026-07-28: the call is dropped, nothing is sent
        request.settle(card.result, card.outcome)
        if record is not None:
            content = getattr(card.result, "content", None)
            with record.lock:  # answered: the call need not end it, so it need not hold it either
                if request in record.requests:
                    record.requests.remove(request)
                    for value in content.values() if isinstance(content, dict) else ():
                        if value not in record.answered:  # still redacted where the server echoes it
                            record.answered.append(value)
        self.put_away(record, card)

    def put_away(self, record: CallRecord | None, card: Card) -> None:
        """An answered form must not pile up (a runaway server); a URL card waits for the server's word."""
        if card.kind != "form":
            return
        if record is not None and record.panel is not None:
            record.panel.retire(card)
        elif self.ctx.settings.output is None and kernel.kernel_support() == "none":
            card.close()  # plain python: nothing displays its closing line
        else:
            self.loose.keep(card)  # shown outside any call: the newest few stay

    def settle_without_card(
        self,
        request: PendingRequest,
        action: Action,
        reason: Reason,
        note: str,
        *,
        record: CallRecord | None = None,
        by: str | None = None,
    ) -> bool:
        """Answer a request that has no card (and write it in the history); False when already settled."""
        outcome = Outcome(action, reason, by, note=note)
        if not request.settle(mcp_types.ElicitResult(action=action.value), outcome):
            return False
        self.write_history(request, record, outcome)
        return True

    def write_card_history(self, request: PendingRequest, record: CallRecord | None, card: Card) -> None:
        """Record the request a form or URL card shows in the process-wide history; the card finishes it."""
        fields = cast("ElicitationForm", card).spec.fields if card.kind == "form" else ()
        entry = self.write_history(request, record, None, message=card.message, fields=fields)
        if entry is not None:
            request.history_id = entry.id
            card.add_done_callback(partial(self._history_done, entry.id, request))

    @staticmethod
    def _history_done(entry_id: int, request: PendingRequest, card: Card) -> None:
        # After `card_done`: a card answered just after its request was withdrawn sent nothing.
        withdrawn = request.reply.cancelled() and request.outcome is not None
        default_history().finish(entry_id, request.outcome if withdrawn else card.outcome)

    def write_history(
        self,
        request: PendingRequest,
        record: CallRecord | None,
        outcome: Outcome | None,
        *,
        message: str | None = None,
        fields: Iterable[Any] = (),
    ) -> HistoryRecord | None:
        """Write a request in the history; with `outcome`, one that ended without a card (refused,
        withdrawn or answered before one existed). Never a value: only what the server sent."""
        try:
            return default_history().begin(
                server=self.ctx.name,
                mode="url" if request.kind == "url" else "form",
                message=request.message if message is None else message,
                declared_name=self.ctx.learned.declared_name,
                source=(record.kind, record.name) if record is not None else None,
                url=request.url,
                fields=fields,
                schema=request.schema,
                started=request.created,
                outcome=outcome,
            )
        except Exception:  # the history must never stop a question from being asked
            log.exception("recording a request from %s in the history failed", self.ctx.name)
            return None

    def _answer_timed_out(self, request: PendingRequest) -> None:
        note = f"no answer within {self.ctx.settings.answer_timeout or 0:g} s"
        card = request.card
        if card is not None:
            card.finish(Action.CANCEL, reason=Reason.TIMEOUT, note=note)
        else:
            record = self.pending.get(request)
            self.settle_without_card(request, Action.CANCEL, Reason.TIMEOUT, note, record=record)

    def call_ended(self, record: CallRecord) -> None:
        """The call ended: end its questions still open at once (main thread). Without a kernel nothing
        runs posted work (`withdrawn`) once the caller stops waiting: a card would stay pending forever."""
        for request in list(record.requests):
            card = request.card
            if card is not None and card.outcome is not None:
                continue
            if request.done():  # withdrawn (or settled without a card): say so now
                self.withdrawn(request, record)
            elif card is not None:  # nobody can use this answer any more
                card.finish(Action.CANCEL, reason=Reason.WITHDRAWN, note="the call ended without it")

    def withdrawal(self, record: CallRecord | None, legacy: bool = True) -> tuple[Reason, None, str]:
        """Why a request ended without an answer it could send (reason, by, note)."""
        if record is not None and record.interrupted:
            return Reason.INTERRUPT, None, record.interrupt_note(legacy)
        link = self.ctx.link
        if link.state == "lost":
            return Reason.WITHDRAWN, None, "the server disconnected"
        if link.state == "closed" or link.closing:
            return Reason.WITHDRAWN, None, "the connection was closed"
        return Reason.WITHDRAWN, None, "the server withdrew the request"

    def withdrawn(self, request: PendingRequest, record: CallRecord | None) -> None:
        reason, _, note = self.withdrawal(record, request.legacy)
        card = request.card
        if card is not None and card.outcome is None:
            card.finish(Action.CANCEL, reason=reason, note=note)
        if request.outcome is None:
            request.outcome = Outcome(Action.CANCEL, reason, note=note)
            if card is None:  # withdrawn before any card was built: only the history tells
                self.write_history(request, record, request.outcome)
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            request.reply.cancel()
