"""URL-mode elicitations in the client: URL cards in the calling cell, both protocol generations.

The client calls in at three places, each with the server's `UrlFlow` (built by `parts.assemble`): `present`
(`intake`: a URL-mode request, main thread), `on_message` (a server notification, client thread) and
`retrying` (around a call, client thread, for error -32042). A card's question ends through `Endings`, as a
form's does.

- Every URL is checked with `inspect_url` first. A refused one is declined at once (Reason.REFUSED_URL): the
  card shows only its closing line saying why, and no handler or person is asked.
- An allowed one becomes a `UrlCard`, placed and answered exactly like a form (handler, else the person).
- 2025-11-25: an accepted card with an elicitation id waits for `notifications/elicitation/complete` with
  that id (unknown or finished ids are ignored); when the call ends first, it ends with "the call ended".
- 2025-11-25, -32042: each required URL gets a card; after consent the card asks "I've finished — try
  again" (answered by the person, or by the completion notification); once every card ended accepted the
  call is retried once with the same arguments. A decline or cancel ends it: the caller gets the error.
- 2026-07-28: when the next round of the same call asks for the URL a waiting card shows, that card asks
  again instead of a new card stacking up; each round is answered by the handler or the person, never
  by us, so no round is spent without them.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import mcp_types
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from ... import kernel
from ...core.card import Handler
from ...core.exceptions import ServerError, brief
from ...core.outcome import Action, Outcome, Reason
from ...core.protocol import LEGACY, is_modern
from ...core.requests import PendingRequest
from ..record import CallStyle
from . import answering
from .answering import pick_handler
from .endings import Endings

if TYPE_CHECKING:
    from ...widgets import UrlCard
    from ..record import CallRecord

__all__ = ["UrlFlow", "UrlQuestion", "on_message", "present", "retrying"]

log = logging.getLogger("mcp_widgets")

T = TypeVar("T")


@dataclass(eq=False)
class UrlFlow:
    """One server's URL cards (main thread only); handed to its `Intake` and its `Runner`."""

    endings: Endings
    """How the cards' questions end (and are recorded), as forms' do."""
    place: Callable[[CallRecord | None, Any], None]
    """Shows a card or a line in the call's panel (the calling cell, or its `output=`)."""
    by_id: dict[str, UrlCard] = field(default_factory=dict)
    """2025-11-25: accepted cards still waiting for their completion notification, by elicitation id."""
    by_call: weakref.WeakKeyDictionary[CallRecord, list[UrlCard]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    """The cards each call showed: reused for a repeated URL, ended when the call ends."""
    put_away: Callable[[UrlCard], object] = lambda card: None
    """Where an ended card no call holds goes (the server's loose cards, closed with the server)."""
    loose: list[UrlCard] = field(default_factory=list)
    """The open cards of questions no call was found for (one asked after its call ended): ended with the
    connection, as nothing else ends them."""

    def adopt(self, record: CallRecord | None, card: UrlCard) -> None:
        if record is None:
            self._sweep(lambda c: c.waiting or c.outcome is None)
            self.loose.append(card)
            return
        cards = self.by_call.get(record)
        if cards is None:
            cards = self.by_call[record] = []
            if record.future is not None:
                ended = partial(self.call_ended, record)
                record.future.add_done_callback(lambda _fut: kernel.post(ended))
        cards.append(card)

    def reusable(self, record: CallRecord | None, request: PendingRequest) -> UrlCard | None:
        """2026-07-28: the card of this call waiting on the same URL, if any."""
        if record is None or request.legacy:
            return None
        for card in self.by_call.get(record, ()):
            if card.url == request.url and card.can_ask_again:
                return card
        return None

    def remember(self, card: UrlCard) -> None:
        """A round of `card` ended: after consent, wait for its completion notification (2025-11-25)."""
        if card.elicitation_id and card.waiting:
            self.by_id[card.elicitation_id] = card

    def completed(self, elicitation_id: str) -> None:
        card = self.by_id.pop(elicitation_id, None)
        if card is None:
            log.debug("ignored notifications/elicitation/complete for an unknown or finished id")
            return
        card.complete()

    def call_ended(self, record: CallRecord) -> None:
        """The call is over: its cards stop waiting, and later notifications for them are ignored."""
        for card in self.by_call.pop(record, []):
            if card.elicitation_id and self.by_id.get(card.elicitation_id) is card:
                del self.by_id[card.elicitation_id]
            if card.waiting:
                card.complete(note="the call ended")

    def connection_ended(self, note: str) -> None:
        """The connection went away: the cards of no call stop waiting (a call's end with their call)."""
        for card in self.loose:
            if card.elicitation_id and self.by_id.get(card.elicitation_id) is card:
                del self.by_id[card.elicitation_id]
            if card.waiting:
                card.complete(note=note)
        self._sweep(lambda c: False)

    def _sweep(self, still_open: Callable[[UrlCard], bool]) -> None:
        ended = [c for c in self.loose if not still_open(c)]
        self.loose = [c for c in self.loose if still_open(c)]
        for card in ended:
            self.put_away(card)


# --------------------------------------------------------------------------- requests (main thread)


def present(flow: UrlFlow, request: PendingRequest, record: CallRecord | None) -> None:
    """Show a URL-mode request as a card in the calling cell and let the handler or the person answer it.

    A card whose earlier round is still on screen (2026-07-28: the server asks again for the same URL) is
    asked again in place; a new one is built. A refused URL's card is declined as it is built, and only
    shown.
    """
    answering.present(UrlQuestion(flow, request, record, reused=flow.reusable(record, request)))


@dataclass(eq=False)
class UrlQuestion:
    """A URL card's way through `answering.present` (`Presented`), at one of its steps: "ask" (a URL-mode
    request), "required" (a -32042 URL's consent) or "finished" (its "I've finished — try again", whose
    history entry is the first step's). A new card is followed and placed; a card asked again (`reused`)
    is on screen already. A refused URL's card is declined as it is built, and only shown."""

    flow: UrlFlow
    request: PendingRequest
    call: CallRecord | None
    step: Literal["ask", "required", "finished"] = "ask"
    reused: UrlCard | None = None

    @property
    def server(self) -> str:
        return self.flow.endings.ctx.name

    @property
    def chosen(self) -> tuple[Handler, Reason, str] | None:
        return pick_handler(self.flow.endings.ctx.settings.handler)

    @property
    def style(self) -> CallStyle | None:
        return self.call.style if self.call is not None else None

    @property
    def shown(self) -> bool:
        return self.reused is not None

    def build(self) -> UrlCard | None:
        card = self.reused
        if card is None:
            return _build(self.flow, self.request, self.call)
        if self.step == "finished":
            card.ask_again()
        else:
            card.ask_again(self.request.message)
            self.request.card = card
        return card

    def prepare(self, card: UrlCard) -> None:
        if self.reused is not None:
            return
        if card.check.allowed:
            self.flow.adopt(self.call, card)
        elif self.call is None:  # a refused URL's card is over as it is built: no call's line will close it
            self.flow.put_away(card)

    def deliver(self, card: UrlCard) -> None:
        if self.step == "required":
            _consented(self.flow, self.request, self.call, card)
            return
        self.flow.endings.card_done(self.request, self.call, card)
        if self.step == "ask":  # an accepted card waits for the server's word
            self.flow.remember(card)

    def write_history(self, card: UrlCard) -> None:
        if self.step != "finished":
            self.flow.endings.write_card_history(self.request, self.call, card)

    def place(self, card: UrlCard) -> None:
        self.flow.place(self.call, card)

    def tell(self, text: str) -> None:
        self.flow.place(self.call, text)

    def ask(self, card: UrlCard) -> bool:
        return card.check.allowed


def _build(flow: UrlFlow, request: PendingRequest, record: CallRecord | None) -> UrlCard | None:
    """The card for `request` (None on failure, the request answered so)."""
    from ...widgets import LineDrawnUrlCard, UrlCard

    kind = LineDrawnUrlCard if kernel.in_marimo() else UrlCard  # marimo: only a call's line shows it
    try:
        card = kind(
            request.message,
            request.url or "",
            server=flow.endings.ctx.name,
            declared_name=flow.endings.ctx.learned.declared_name,
            elicitation_id=request.elicitation_id,
        )
    except Exception as exc:
        flow.endings.card_failed(request, record, exc, "request")
        return None
    request.card = card
    return card


# --------------------------------------------------------------------------- notifications (client thread)


def on_message(flow: UrlFlow, message: Any) -> None:
    """Route `notifications/elicitation/complete` to the waiting card (posted to the main thread)."""
    root = getattr(message, "root", message)
    if isinstance(root, mcp_types.ElicitCompleteNotification):
        kernel.post(partial(_completed, flow, root.params.elicitation_id))


def _completed(flow: UrlFlow, elicitation_id: str) -> None:
    flow.completed(elicitation_id)


# --------------------------------------------------------------------------- -32042 (client thread)


async def retrying(flow: UrlFlow, record: CallRecord, attempt: Callable[[], Awaitable[T]]) -> T:
    """`attempt()`; on -32042 (2025-11-25), show the required pages, then retry once if all were done."""
    try:
        return await attempt()
    except MCPError as exc:
        needed = _required(flow, exc)
        if not needed:
            raise
        failed = exc
    refused = await _visit(flow, record, needed)
    if refused is not None:
        # The person's (or their handler's) own choice: one line, nothing of the SDK's error chained.
        raise brief(
            ServerError(
                f"{record.describe()} was not run: it needs a page opened first, and that was "
                f"{refused.describe()} "
                f"(URL elicitation required, code {failed.error.code})",
                code=failed.error.code,
                data=failed.error.data,
            )
        )
    return await attempt()  # once: a second -32042 reaches the caller as an error


def _required(flow: UrlFlow, exc: MCPError) -> list[mcp_types.ElicitRequestURLParams]:
    ctx = flow.endings.ctx
    if exc.error.code != mcp_types.URL_ELICITATION_REQUIRED or is_modern(ctx.learned.protocol_version):
        return []
    try:
        return list(UrlElicitationRequiredError.from_error(exc.error).elicitations)
    except Exception:
        log.debug("a -32042 error from %s without a readable list of URLs", ctx.name, exc_info=True)
        return []


async def _visit(
    flow: UrlFlow, record: CallRecord, needed: list[mcp_types.ElicitRequestURLParams]
) -> Outcome | None:
    """Show a card per required URL; None once every one ended accepted (and finished), else how the
    first that did not ended."""
    version = flow.endings.ctx.learned.protocol_version or LEGACY
    requests = [
        PendingRequest(
            server=flow.endings.ctx.name,
            kind="url",
            message=p.message,
            protocol_version=version,
            url=p.url,
            elicitation_id=p.elicitation_id,
        )
        for p in needed
    ]
    for request in requests:
        record.add(request)
        flow.endings.pending[request] = record
    kernel.post(partial(_present_required, flow, requests, record))
    timers = flow.endings.time_answers(requests)
    try:
        waiting = {asyncio.wrap_future(r.reply) for r in requests}
        while waiting:
            done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if not all(not f.cancelled() and _accepted(f.result()) for f in done):
                for request in requests:
                    kernel.post(partial(_drop, request, "another required page was not agreed to"))
                if waiting:
                    await asyncio.wait(waiting)
                ended = [r.outcome for r in requests if r.outcome and r.outcome.action != Action.ACCEPT]
                return ended[0] if ended else Outcome(Action.CANCEL, Reason.WITHDRAWN)
        return None
    except asyncio.CancelledError:
        for request in requests:
            kernel.post(partial(flow.endings.withdrawn, request, record))
        raise
    finally:
        for timer in timers:
            timer.cancel()
        for request in requests:
            flow.endings.pending.pop(request, None)
            record.discard(request)


def _accepted(result: Any) -> bool:
    return isinstance(result, mcp_types.ElicitResult) and result.action == "accept"


def _present_required(flow: UrlFlow, requests: list[PendingRequest], record: CallRecord) -> None:
    """Main thread: a card per required URL; after consent it asks "I've finished — try again"."""
    for request in requests:
        if request.done():
            continue
        if record.interrupted:
            note = record.interrupt_note(legacy=True)
            flow.endings.settle_without_card(request, Action.CANCEL, Reason.INTERRUPT, note, record=record)
            continue
        answering.present(UrlQuestion(flow, request, record, step="required"))


def _consented(flow: UrlFlow, request: PendingRequest, record: CallRecord | None, card: UrlCard) -> None:
    """Round 1 of a required URL ended: declined or cancelled settles it; consent asks when finished."""
    if card.outcome is None or card.outcome.action is not Action.ACCEPT:
        flow.endings.card_done(request, record, card)
        return
    flow.remember(card)
    # Later, so the handler that consented finishes first (it is asked again for the new round).
    kernel.post(partial(_ask_finished, flow, request, record, card))


def _ask_finished(flow: UrlFlow, request: PendingRequest, record: CallRecord | None, card: UrlCard) -> None:
    if request.done():
        return
    if card.completed:  # the completion notification came first: the server says it is done
        request.settle(
            mcp_types.ElicitResult(action="accept"),
            Outcome(Action.ACCEPT, Reason.POLICY, by="elicitation/complete"),
        )
        return
    if not card.can_ask_again:  # hidden with Done before finishing
        request.settle(
            mcp_types.ElicitResult(action="cancel"),
            Outcome(Action.CANCEL, Reason.PERSON, note="the card was hidden before the page was finished"),
        )
        return

    answering.present(UrlQuestion(flow, request, record, step="finished", reused=card))


def _drop(request: PendingRequest, note: str) -> None:
    """End a required URL's card that is no longer needed (nothing is retried)."""
    card = request.card
    if card is not None:
        if card.outcome is None:
            card.finish(Action.CANCEL, reason=Reason.POLICY, by="mcp-widgets", note=note)
        elif card.waiting:
            card.complete(note=note)
    if not request.done():
        request.settle(
            mcp_types.ElicitResult(action="cancel"), Outcome(Action.CANCEL, Reason.POLICY, note=note)
        )
