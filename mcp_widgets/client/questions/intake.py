"""Elicitation intake: a server's question becomes a `PendingRequest`, then a form or URL card in the cell."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types

from ... import kernel
from ...core.app_policy import app_resource_uri
from ...core.card import Handler
from ...core.exceptions import INVALID_PARAMS, SchemaError, TooManyQuestions
from ...core.outcome import Action, Outcome, Reason
from ...core.protocol import LEGACY, is_modern
from ...core.requests import PendingRequest
from ..record import CURRENT_CALL, CallStyle
from ..tasks import experimental as tasks
from . import answering, url_mode
from .answering import pick_handler
from .bounds import over_bound
from .endings import Endings
from .rounds import Rounds

if TYPE_CHECKING:
    from ...widgets import ElicitationForm
    from ..context import ServerContext
    from ..in_flight import CallsInFlight
    from ..record import CallRecord


log = logging.getLogger("mcp_widgets")


class QuestionApps(Protocol):
    """Shows a question with the server's app (`AppHost`): only where both sides declared it."""

    def renders_questions(self) -> bool: ...

    def render_question(self, form: ElicitationForm, uri: str, params: Mapping[str, Any]) -> object: ...


class Intake:
    """A server's questions: take one in (client thread), show it (main thread), settle and record it.
    Its server's settings (`ctx.settings`: name, handler, output, ...) are read when a question comes."""

    def __init__(
        self,
        ctx: ServerContext,
        calls: CallsInFlight,
        open_tasks: tasks.OpenTasks,
        *,
        endings: Endings,
        flow: url_mode.UrlFlow,
        rounds: Rounds,
        place: Callable[[CallRecord | None, Any], None],
        apps: QuestionApps | None = None,
        tie: Callable[[Any, CallRecord], None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.calls = calls
        """The calls in flight: a question finds its call there (and none while only completions run)."""
        self.open_tasks = open_tasks
        self.endings = endings
        self.pending = endings.pending
        self.flow = flow
        self.rounds = rounds
        self.place = place
        """Shows a card or a line in the call's panel (`CallDisplay.place`)."""
        self.apps = apps
        self.tie = tie
        """Told which call a server's request belongs to (the wire groups it there)."""

    async def on_elicit(
        self, context: Any, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        """The SDK's elicitation callback (client thread): the answer, once the handler or person gave it."""
        ctx = self.ctx
        record = self.open_tasks.call_of(context) or CURRENT_CALL.get() or self.calls.guess()
        version = ctx.learned.protocol_version or LEGACY
        if record is not None:
            refusal = self._refuse_over_bound(record)
            if refusal is not None:
                return refusal
            record.asked += 1
            if self.tie is not None and context is not None:
                self.tie(getattr(context, "request_id", None), record)
        elif self.calls.completing:
            # A completion is no call and asks nothing of the person: its question is declined unseen (no
            # widget, no history row: its message may quote what is being typed).
            return mcp_types.ElicitResult(action="decline")
        elif sum(1 for r in self.pending.values() if r is None) >= (at_once := ctx.settings.max_questions[1]):
            refused = f"too many questions: the client allows no more than {at_once} open at once"
            return mcp_types.ErrorData(code=INVALID_PARAMS, message=refused)
        if isinstance(params, mcp_types.ElicitRequestURLParams):
            request = PendingRequest(
                server=ctx.name,
                kind="url",
                message=params.message,
                protocol_version=version,
                url=params.url,
                elicitation_id=params.elicitation_id,
            )
        else:
            request = PendingRequest(
                server=ctx.name,
                kind="form",
                message=params.message,
                protocol_version=version,
                schema=dict(params.requested_schema),
                app_uri=app_resource_uri(params.meta),
            )
            if request.app_uri is not None:
                request.params = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        if record is not None and not record.add(request):
            record = None  # its call ended meanwhile: a question asked outside any call
        self.pending[request] = record
        if record is not None and is_modern(version) and context is not None:
            self.rounds.asked(record, request)  # a plain round's question (a task's comes without context)
        timers = self.endings.time_answers([request])
        try:
            if record is not None and is_modern(version):
                # Let the round's other questions be counted before any form is built: a round past the
                # bound is refused as a whole.
                await asyncio.sleep(0)
                if record.stopped is not None:  # a later question of the round went past the bound
                    stopped = mcp_types.ErrorData(
                        code=INVALID_PARAMS, message="too many questions: the call is stopped"
                    )
                    request.settle(stopped)
                    return stopped
            if record is not None:
                record.post(partial(self._present, request, record))
            else:
                kernel.post(partial(self._present, request, record))
            return await asyncio.wrap_future(request.reply)
        except asyncio.CancelledError:
            # Withdrawn (notifications/cancelled), the connection went away, or our call was stopped (what
            # stops it is noted before). Said at once: a handler or person answering meanwhile would end the
            # card as answered, though the answer can no longer be sent.
            post = record.post if record is not None else kernel.post
            post(partial(self.endings.withdrawn, request, record))
            raise
        finally:
            for timer in timers:
                timer.cancel()
            self.pending.pop(request, None)
            if record is not None:
                record.discard(request)

    def _refuse_over_bound(self, record: CallRecord) -> mcp_types.ErrorData | None:
        """Past `max_questions`: the error to answer, and the call is stopped with `TooManyQuestions`."""
        if record.stopped is not None:
            return mcp_types.ErrorData(code=INVALID_PARAMS, message="too many questions: the call is stopped")
        per_call, at_once = self.ctx.settings.max_questions
        over = over_bound(record, (per_call, at_once))
        if over is None:
            return None
        text = (
            f"{record.describe()} was stopped: the server asked {over} (the bound is "
            f"connect(max_questions=...), now {per_call} per call, {at_once} open at once)"
        )
        record.stopped = TooManyQuestions(text)
        log.warning("%s", text)
        record.post(partial(self.place, record, text))
        task = record.task
        if task is not None:
            asyncio.get_running_loop().call_soon(task.cancel)
        refused = f"too many questions: the client allows no {over}"
        return mcp_types.ErrorData(code=INVALID_PARAMS, message=refused)

    def end_loose_cards(self) -> None:
        """The connection went away (client thread): URL cards no call was found for stop waiting."""
        kernel.post(lambda: self.flow.connection_ended(self.endings.withdrawal(None)[2]))

    def withdraw_all(self, kept: Collection[CallRecord] = ()) -> None:
        """The connection went away (client thread): every open question ends as withdrawn, but those of
        the `kept` calls (`Endings.withdraw_all`)."""
        self.endings.withdraw_all(kept)

    def on_message(self, message: Any) -> None:
        """A server message (client thread): `notifications/elicitation/complete` ends a URL card's wait."""
        url_mode.on_message(self.flow, message)

    # -- elicitation (main thread) ------------------------------------------------------------------------

    def _present(self, request: PendingRequest, record: CallRecord | None) -> None:
        """Build the card of a request in the calling cell and decide who answers it."""
        if request.done():
            return
        if record is not None and record.interrupted:
            note = record.interrupt_note(legacy=True)  # nothing was sent yet: only the reason is news
            self.endings.settle_without_card(request, Action.CANCEL, Reason.INTERRUPT, note, record=record)
            return
        if request.kind == "url":  # a URL card, shown and answered like a form (see `url_mode`)
            url_mode.present(self.flow, request, record)
            return
        chosen = pick_handler(self.ctx.settings.handler)
        answering.present(
            FormQuestion(self.ctx, request, record, chosen, self.endings, self.rounds, self.place, self.apps)
        )


@dataclass(eq=False)
class FormQuestion:
    """A form's way through `answering.present` (`Presented`): Accept goes from the click to
    `Endings.card_done` in one step (`deliver`, the form's first done callback)."""

    ctx: ServerContext
    request: PendingRequest
    call: CallRecord | None
    chosen: tuple[Handler, Reason, str] | None
    endings: Endings
    rounds: Rounds
    show: Callable[[CallRecord | None, Any], None]
    """Shows a card or a line in the call's panel (`CallDisplay.place`)."""
    apps: QuestionApps | None = None
    shown: bool = False

    @property
    def server(self) -> str:
        return self.ctx.name

    @property
    def style(self) -> CallStyle | None:
        return self.call.style if self.call is not None else None

    def build(self) -> ElicitationForm | None:
        """The form for the request (None: refused or failed, and the request answered so)."""
        from ...widgets import ElicitationForm, LineDrawnForm

        ctx, request, call = self.ctx, self.request, self.call
        handler = self.chosen is not None
        kind = LineDrawnForm if kernel.in_marimo() else ElicitationForm  # marimo: only a call's line shows it
        try:
            # A handler usually answers at once: its form makes only what the handler drives.
            build = kind.for_handler if handler else kind
            form = build(
                request.message,
                request.schema or {},
                server=ctx.name,
                declared_name=ctx.learned.declared_name,
            )
        except SchemaError as exc:
            self._refuse_schema(exc)
            return None
        except Exception as exc:
            self.endings.card_failed(request, call, exc, "form")
            return None
        request.card = form
        apps, uri, params = self.apps, request.app_uri, request.params
        if not handler and apps is not None and uri and params and apps.renders_questions():
            try:
                apps.render_question(form, uri, params)
            except Exception:  # the plain form is always there
                log.exception("showing the app of a question from %s failed", ctx.name)
                form.use_plain_form("The plain form instead: the app could not be shown.")
        return form

    def _refuse_schema(self, exc: SchemaError) -> None:
        request, call = self.request, self.call
        if call is not None and not request.legacy:
            call.schema_error = exc  # no request to answer on 2026-07-28: the caller gets the SchemaError
        outcome = Outcome(Action.DECLINE, Reason.INVALID_SCHEMA, note=str(exc))
        if request.settle(mcp_types.ErrorData(code=exc.code, message=str(exc)), outcome):
            self.endings.write_history(request, call, outcome)
        self.show(call, f"{self.ctx.name} sent a request that cannot be shown: {exc}")

    def prepare(self, card: ElicitationForm) -> None:
        if not self.request.legacy:  # asked again after its answer came too late: what was typed
            self.rounds.refill(self.request, card)

    def deliver(self, card: ElicitationForm) -> None:
        self.endings.card_done(self.request, self.call, card)

    def write_history(self, card: ElicitationForm) -> None:
        self.endings.write_card_history(self.request, self.call, card)

    def place(self, card: ElicitationForm) -> None:
        self.show(self.call, card)

    def tell(self, text: str) -> None:
        self.show(self.call, text)

    def ask(self, card: ElicitationForm) -> bool:
        return True
