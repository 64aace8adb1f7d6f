"""2026-07-28 input-required rounds that may expire: how long a question has, and a late answer refused.

A round's questions come with an opaque `requestState` that the server alone reads, and a server keeps it
only so long: the MCP Python SDK's `MCPServer` seals it with a 10-minute lifetime by default
(`RequestStateSecurity(ttl=600)`), then refuses the answer ("Invalid or expired requestState", -32602). The
protocol does not say how long, so the client assumes `ROUND_TTL` until a server refuses a late answer,
then at most what that server kept (`limit`). While a round's questions wait, the call's panel says how
long they have ("answer within about 9 min"), as a task's status line does; unlike that line, it is never
part of the text the call leaves when it ends (it says how each question ended).

When the server refuses an answer as expired, the call ends with `AnswerExpired` (one line), the history
records the round's questions as expired (not accepted), and calling again offers the same question with
what was typed: the answered form keeps its values in its own Python object (never in a widget model, the
history, a log or a repr), and the intake holds that form until the same question (same call, message
and schema) is asked again, then fills the new form from it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from mcp.shared.exceptions import MCPError

from ...core.exceptions import INVALID_PARAMS, AnswerExpired, brief
from ...core.history import default_history
from ...core.outcome import Action, Outcome, Reason
from ...core.protocol import is_modern
from ...core.requests import PendingRequest
from ...widgets import waited_text

if TYPE_CHECKING:
    from ...widgets import ElicitationForm
    from ..context import ServerContext
    from ..display import CallDisplay
    from ..record import CallRecord

__all__ = ["ROUND_TTL", "Rounds", "expired_error"]

log = logging.getLogger("mcp_widgets")

ROUND_TTL = 600.0
"""Seconds a server is assumed to keep a round's question (the MCP Python SDK's default) until it refuses
a late answer."""
KEPT_FORMS = 20
"""Answered forms kept per server for asking again (the newest)."""
_EXPIRED = re.compile(r"expired|request ?state", re.IGNORECASE)


@dataclass(eq=False)
class _Round:
    """The questions of one call's current round (client thread adds; main thread shows)."""

    requests: list[PendingRequest] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    label: Any = None
    """The panel's line saying how long the round has (main thread)."""
    timer: asyncio.TimerHandle | None = None


class Rounds:
    """One server's rounds in flight, by call (handed to its `Intake` and its `Runner`)."""

    def __init__(self, ctx: ServerContext, display: CallDisplay) -> None:
        self.ctx = ctx
        self.display = display
        self.kept: float | None = None
        """How long the server kept a question it then refused the answer to (seconds), the shortest."""
        self._rounds: weakref.WeakKeyDictionary[CallRecord, _Round] = weakref.WeakKeyDictionary()
        self._answered: OrderedDict[str, ElicitationForm] = OrderedDict()
        """Forms whose answer came too late, by question (main thread): what was typed, to ask again."""

    def limit(self) -> float:
        """How long the server is taken to keep a round's question (seconds)."""
        return ROUND_TTL if self.kept is None else self.kept

    # -- client thread --------------------------------------------------------------------------------------
    def asked(self, record: CallRecord, request: PendingRequest) -> None:
        """A question of a plain round of `record` (not a task's): note it; the round's clock starts."""
        current = self._rounds.get(record)
        if current is None or any(r.done() for r in current.requests):
            # The server answered the last round with a new one: it took those answers in time.
            if current is not None:
                self._stop(current)
            current = self._rounds[record] = _Round()
        current.requests.append(request)
        loop = asyncio.get_running_loop()
        # Answered: the line goes at once (the settling thread hands it to this loop).
        request.reply.add_done_callback(lambda _: loop.call_soon_threadsafe(self._tick, record, current))
        if len(current.requests) == 1:
            self._tick(record, current)

    def _tick(self, record: CallRecord, current: _Round) -> None:
        """Show the time left, then again when the shown text would change, until the round is answered."""
        self._stop(current)
        answered = all(r.done() for r in current.requests)
        left = max(0.0, current.started + self.limit() - time.monotonic())
        record.post(partial(self._show, record, current, left))
        if answered or self._rounds.get(record) is not current:
            return
        wait = 1.0 if left < 121 else left % 60 + 0.05
        with contextlib.suppress(RuntimeError):  # the loop is closing
            current.timer = asyncio.get_running_loop().call_later(max(wait, 0.2), self._tick, record, current)

    def _stop(self, current: _Round) -> None:
        if current.timer is not None:
            current.timer.cancel()
            current.timer = None

    def ended(self, record: CallRecord) -> None:
        """The call ended (client thread): no round of it waits any more (its line goes)."""
        current = self._rounds.pop(record, None)
        if current is not None:
            self._stop(current)
            record.post(partial(self._show, record, current, 0.0))

    def expired(self, record: CallRecord, exc: MCPError) -> AnswerExpired | None:
        """The error that ends the call when the server refused the round's answers as too late, else None.

        Only a refusal (-32602 saying expired or naming the request state) of a round whose every question
        was answered counts; its answers were not used. The round's questions are then recorded as expired,
        and the server's limit is what it kept this time, at most.
        """
        current = self._rounds.get(record)
        error = exc.error
        data = error.data if isinstance(error.data, dict) else {}
        said = data.get("reason") == "invalid_request_state" or bool(_EXPIRED.search(str(error.message)))
        if current is None or not current.requests or error.code != INVALID_PARAMS or not said:
            return None
        if not all(r.done() and r.outcome is not None for r in current.requests):
            return None
        self.ended(record)
        kept = time.monotonic() - current.started
        self.kept = min(self.limit(), kept)
        record.post(partial(self._write_expired, record, current, kept))
        text = (
            f"{record.describe()} ended: its question expired before the answer came ({waited_text(kept)} "
            "after it was asked; the server keeps it no longer), so the answer was not used. Call it again "
            "to be asked again: the form will show what was typed"
        )
        # Not the server's `data`: it may quote the answer (only its code is kept).
        return brief(AnswerExpired(text, code=error.code))

    # -- main thread ----------------------------------------------------------------------------------------
    def _show(self, record: CallRecord, current: _Round, left: float) -> None:
        if record.ended or record.panel is None:
            return
        if all(r.done() for r in current.requests) or self._rounds.get(record) is not current:
            if current.label is not None:  # answered, or the call is over: the time left no longer matters
                record.panel.drop(current.label)
                current.label = None
            return
        text = f"Answer within about {waited_text(left)}"
        if self.kept is not None:
            text += f" ({self.ctx.name} kept its last question {waited_text(self.kept)})"
        else:  # the protocol does not say: the SDK's default
            text += f" (most servers keep a question {waited_text(ROUND_TTL)})"
        self._say(record, current, text)

    def _say(self, record: CallRecord, current: _Round, text: str) -> None:
        if record.ended or record.panel is None:
            return
        if current.label is None:
            current.label = record.panel.line(text, lasting=False)  # never the closing text
            self.display.place(record, current.label)
        else:
            record.panel.set_line(current.label, text)

    def _write_expired(self, record: CallRecord, current: _Round, kept: float) -> None:
        """The history says "expired" for each question of the refused round; their forms wait to be
        asked again (what was typed stays in them)."""
        note = f"answered after {waited_text(kept)}; the server kept it no longer"
        if current.label is not None and record.panel is not None:  # the time left no longer holds
            record.panel.drop(current.label)
            current.label = None
        for request in current.requests:
            outcome = request.outcome
            if outcome is None:
                continue
            expired = Outcome(Action(outcome.action), Reason.EXPIRED, by=_who(outcome), note=note)
            request.outcome = expired
            if request.history_id is not None:
                default_history().revise(request.history_id, expired)
            form = request.card
            _relabel(form, outcome, expired)
            if request.kind == "form" and outcome.action == Action.ACCEPT and form is not None:
                key = _key(request)
                self._answered.pop(key, None)
                self._answered[key] = form
                while len(self._answered) > KEPT_FORMS:
                    self._answered.popitem(last=False)

    def refill(self, request: PendingRequest, form: ElicitationForm) -> None:
        """A question asked again after its answer came too late: fill in what was typed (once)."""
        old = self._answered.pop(_key(request), None)
        result = getattr(old, "result", None)
        content = getattr(result, "content", None)
        if not isinstance(content, dict) or not content:
            return
        try:
            form.fill(**content)
        except Exception:  # a value this form cannot take as typed: the person types it again
            log.debug("could not fill a question asked again from %s", self.ctx.name, exc_info=True)

    def forget(self) -> None:
        """The server closed: nothing typed is kept for it."""
        self._answered.clear()


def expired_error(rounds: Rounds, record: CallRecord, exc: MCPError) -> AnswerExpired | None:
    """`Rounds.expired` of the call's server (2026-07-28 only)."""
    if not is_modern(record.ctx.learned.protocol_version):
        return None
    return rounds.expired(record, exc)


def _relabel(card: Any, was: Outcome, now: Outcome) -> None:
    """The answered card's closing line says how it really ended ("expired", not "accepted")."""
    import ipywidgets as w

    ending = f": {was.describe()}"
    retell = getattr(card, "retell", None)
    if callable(retell):  # a one-model form: it tells the new ending, its line written yet or not
        retell(now)
        return
    kids: tuple[Any, ...] = tuple(getattr(card, "children", ()))
    if len(kids) == 1 and isinstance(kids[0], w.Label) and str(kids[0].value).endswith(ending):
        line = kids[0]
        line.value = str(line.value)[: -len(ending)] + f": {now.describe()}"


def _who(outcome: Outcome) -> str | None:
    reason = Reason(outcome.reason)
    if reason is Reason.PERSON:
        return "person"
    return outcome.by


def _key(request: PendingRequest) -> str:
    """The same question: same server, message and schema (the call is the caller's; the schema decides)."""
    return json.dumps([request.server, request.message, request.schema], sort_keys=True, default=str)
