"""Elicitation intake: a server's question becomes a `PendingRequest`, then a form or URL card in the cell."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types

from ... import kernel
from ...core.app_policy import app_resource_uri
from ...core.exceptions import INVALID_PARAMS, SchemaError, TooManyQuestions
from ...core.outcome import Action, Outcome, Reason
from ...core.protocol import LEGACY, is_modern
from ...core.requests import PendingRequest
from ..record import CURRENT_CALL
from ..tasks import experimental as tasks
from . import answering, url_mode
from .answering import pick_handler
from .bounds import over_bound
from .endings import Endings
from .rounds import Rounds

if TYPE_CHECKING:
    from ...widgets import ElicitationForm
    from ..context import ServerContext
    from ..display import CallDisplay
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
        display: CallDisplay,
        open_tasks: tasks.OpenTasks,
        apps: QuestionApps | None = None,
        tie: Callable[[Any, CallRecord], None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.apps = apps
        self.tie = tie
        """Told which call a server's request belongs to (the wire groups it there)."""
        self.open_tasks = open_tasks
        self.display = display
        self.calls: list[CallRecord] = []
        """The calls in flight, oldest first (client thread only): a question finds its call here."""
        self.completing = 0
        """Completion requests in flight (client thread): a question outside any call meanwhile is theirs."""
        self.loose = display.loose
        self.endings = Endings(ctx, self.loose)
        self.pending = self.endings.pending
        self.flow = url_mode.UrlFlow(self.endings, place=display.place, put_away=self.loose.keep)
        self.rounds = Rounds(ctx, display)
        display.serve(self)  # its questions end with their call; a log line finds its call here

    def guess_call(self) -> CallRecord | None:
        """The call a 2025-11-25 request belongs to (the protocol does not say). One call in flight: that
        one; several: of those with no open question, the one that asked fewest (the oldest of them), else
        the newest. Fewest first: a call whose question was just answered is most often finishing, while
        the call beside it has yet to ask (two calls of one tool in flight)."""
        calls = [c for c in self.calls if (c.future is None or not c.future.done()) and not c.ended]
        if not calls:
            return None
        if len(calls) == 1:
            return calls[0]
        idle = [c for c in calls if not c.waiting_for_answer()]
        return min(idle, key=lambda c: c.asked) if idle else calls[-1]

    async def on_elicit(
        self, context: Any, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        """The SDK's elicitation callback (client thread): the answer, once the handler or person gave it."""
        ctx = self.ctx
        record = self.open_tasks.call_of(context) or CURRENT_CALL.get() or self.guess_call()
        version = ctx.learned.protocol_version or LEGACY
        if record is not None:
            refusal = self._refuse_over_bound(record)
            if refusal is not None:
                return refusal
            record.asked += 1
            if self.tie is not None and context is not None:
                self.tie(getattr(context, "request_id", None), record)
        elif self.completing:
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
        record.post(partial(self.display.place, record, text))
        task = record.task
        if task is not None:
            asyncio.get_running_loop().call_soon(task.cancel)
        refused = f"too many questions: the client allows no {over}"
        return mcp_types.ErrorData(code=INVALID_PARAMS, message=refused)

    def end_loose_cards(self) -> None:
        """The connection went away (client thread): URL cards no call was found for stop waiting."""
        kernel.post(lambda: self.flow.connection_ended(self.endings.withdrawal(None)[2]))

    # -- elicitation (main thread) ------------------------------------------------------------------------

    def _present(self, request: PendingRequest, record: CallRecord | None) -> None:
        """Build the view of a request in the calling cell and decide who answers it."""
        if request.done():
            return
        if record is not None and record.interrupted:
            note = record.interrupt_note(legacy=True)  # nothing was sent yet: only the reason is news
            self.endings.settle_without_view(request, Action.CANCEL, Reason.INTERRUPT, note, record=record)
            return
        if request.kind == "url":  # a URL card, shown and answered like a form (see `url_mode`)
            url_mode.present(self.flow, request, record)
            return
        ctx = self.ctx
        chosen = pick_handler(ctx.settings.handler)
        answering.present(
            partial(self._build_form, request, record, handler=chosen is not None),
            deliver=partial(self.endings.view_done, request, record),
            record=partial(self.endings.record_view, request, record),
            prepare=None if request.legacy else partial(self.rounds.refill, request),
            place=partial(self.display.place, record),
            tell=partial(self.display.place, record),
            chosen=chosen,
            server=ctx.name,
            style=record.style if record is not None else None,
            request=request,
        )

    def _build_form(
        self, request: PendingRequest, record: CallRecord | None, *, handler: bool
    ) -> ElicitationForm | None:
        """The form for `request` (None: refused or failed, and the request answered so)."""
        from ...widgets import ElicitationForm

        ctx = self.ctx
        try:
            # A handler usually answers at once: its form makes only what the handler drives.
            build = ElicitationForm._for_handler if handler else ElicitationForm
            form = build(
                request.message,
                request.schema or {},
                server=ctx.name,
                declared_name=ctx.learned.declared_name,
            )
        except SchemaError as exc:
            self._refuse_schema(request, record, exc)
            return None
        except Exception as exc:
            self.endings.view_failed(request, record, exc, "form")
            return None
        request.view = form
        apps, uri, params = self.apps, request.app_uri, request.params
        if not handler and apps is not None and uri and params and apps.renders_questions():
            try:
                apps.render_question(form, uri, params)
            except Exception:  # the plain form is always there
                log.exception("showing the app of a question from %s failed", ctx.name)
                form.use_plain_form("The plain form instead: the app could not be shown.")
        return form

    def _refuse_schema(self, request: PendingRequest, record: CallRecord | None, exc: SchemaError) -> None:
        if record is not None and not request.legacy:
            record.schema_error = exc  # no request to answer on 2026-07-28: the caller gets the SchemaError
        outcome = Outcome(Action.DECLINE, Reason.INVALID_SCHEMA, note=str(exc))
        if request.settle(mcp_types.ErrorData(code=exc.code, message=str(exc)), outcome):
            self.endings.record(request, record, outcome)
        self.display.place(record, f"{self.ctx.name} sent a request that cannot be shown: {exc}")

    def call_ended(self, record: CallRecord) -> None:
        """The call ended: its open questions end, and its URL cards waiting for their page too."""
        self.end_views(record)
        self.flow.call_ended(record)

    def end_views(self, record: CallRecord) -> None:
        """The call ended: end its questions still open at once (main thread). Without a kernel nothing
        runs posted work (`withdrawn`) once the caller stops waiting: a view would stay pending forever."""
        for request in list(record.requests):
            view = request.view
            if view is not None and view.outcome is not None:
                continue
            if request.done():  # withdrawn (or settled without a view): say so now
                self.endings.withdrawn(request, record)
            elif view is not None:  # nobody can use this answer any more
                view.finish(Action.CANCEL, reason=Reason.WITHDRAWN, note="the call ended without it")
