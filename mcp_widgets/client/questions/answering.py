"""A card from built to answered: the one way it is presented, and who answers it: a handler, a policy
(MCP_WIDGETS_HANDLER), or the person (if anyone is looking).

`present` is the one way every card is presented (a form, a URL card, a sign-in card): build, wire, record,
place, answer, in that order, here and nowhere else. It is given one object (`Presented`) whose methods are
the steps below.

1. **build** the card (with SIGINT held back: building opens a few dozen comms, and an interrupt landing
   halfway would leave a card nobody holds; it is taken just after, when the card can end "interrupted");
2. **prepare** it, before anyone can see it (a sign-in card learns where its paste and Cancel go);
3. **deliver**: its first done callback sends the answer where it is awaited (the server, the sign-in);
4. **record**: its history entry, which the card finishes in its second done callback, so the history
   notes an answer only once it went out;
5. **place** it where the call is and let the handler, else the person, else a headless policy answer it
   (`answer`). A card that must not be asked (a refused address, declined as it was built) is only placed:
   its closing line says why.
"""

from __future__ import annotations

import concurrent.futures
import inspect
import logging
import os
from collections.abc import Callable, Generator
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from ... import handlers, kernel
from ...core.card import Card, Handler
from ...core.outcome import Action, Reason
from ...core.requests import PendingRequest
from .. import console
from ..record import CallStyle, describe_exc
from ..runtime import RUNTIME

if TYPE_CHECKING:
    pass


log = logging.getLogger("mcp_widgets")

C = TypeVar("C", bound=Card)

LOOK_GRACE = 1.5
"""Seconds a form may stay unseen by any frontend before "nobody is looking" declines it."""

SLOW_PAGE_GRACE = 20.0
"""Seconds instead of LOOK_GRACE in a kernel where a frontend has already rendered a question of ours, or
made the model of one (`kernel.page_seen`). A page is there, and a busy one (a loaded machine, a slow link,
a big notebook) can take longer than LOOK_GRACE to render a form: declining it as headless then took the
question from the person looking at it (seen in JupyterLab under load, and in CI for a first question). A
headless run never reports a model or a view, so it keeps the short grace; a page closed since gets its new
questions declined after this longer one."""


def set_default_handler(handler: Handler | None) -> None:
    """Use `handler` for every server connected without `handler=` (None: the person answers again)."""
    RUNTIME.default_handler = handler


def get_default_handler() -> Handler | None:
    """The handler `set_default_handler` installed, or None."""
    return RUNTIME.default_handler


def _handler_name(handler: Any) -> str:
    return str(getattr(handler, "__name__", None) or type(handler).__name__)


_warned_env: set[str] = set()


def _env_policy() -> tuple[Handler, str] | None:
    """The headless policy chosen by MCP_WIDGETS_HANDLER, if any."""
    value = os.environ.get("MCP_WIDGETS_HANDLER", "").strip()
    if not value:
        return None
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


def pick_handler(handler: Handler | None) -> tuple[Handler, Reason, str] | None:
    """Who answers instead of the person: this handler, else the default one, else MCP_WIDGETS_HANDLER."""
    handler = handler or RUNTIME.default_handler
    if handler is not None:
        return handler, Reason.HANDLER, _handler_name(handler)
    policy = _env_policy()
    if policy is not None:
        return policy[0], Reason.POLICY, policy[1]
    return None


class HandlerRun:
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
        card: Card,
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
        self.card.finish(Action.CANCEL, reason=Reason.INTERRUPT)  # the reason says it: no note repeats it

    def start(self) -> None:
        try:
            with self.card.acting_as(self.reason, by=self.by):
                awaitable = self.handler(self.card)
        except KeyboardInterrupt:
            raise  # `answer` ends the card as interrupted; the waiting cell must see it
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


def _noun(card: Card) -> str:
    """What the person would have seen: "the form", "the URL card"."""
    return {"form": "form", "url": "URL card", "signin": "sign-in card"}.get(card.kind, f"{card.kind} card")


def decline_if_unseen(card: Card) -> None:
    """Decline `card` if it is still pending and no frontend has rendered it after LOOK_GRACE seconds, or
    after SLOW_PAGE_GRACE where a frontend has rendered a question of ours before (a page that is slow, not
    absent)."""

    def check(waited: float) -> None:
        # A view report may still wait behind a cell that kept the kernel busy: judge after delivering it.
        if card.outcome is None and not kernel.is_viewed(card):
            kernel.seen_by_now(card).add_done_callback(partial(decide, waited))

    def decide(waited: float, seen: concurrent.futures.Future[bool]) -> None:
        if card.outcome is not None or seen.result():
            return
        more = SLOW_PAGE_GRACE - waited
        if kernel.page_seen() and more > 0:
            later(more, waited + more)
            return
        card.finish(
            Action.DECLINE,
            reason=Reason.POLICY,
            by="headless",
            note=f"no frontend showed the {_noun(card)}; pass handler= or set MCP_WIDGETS_HANDLER",
        )

    def later(delay: float, waited: float) -> None:
        loop = RUNTIME.loop()
        loop.call_soon_threadsafe(loop.call_later, delay, kernel.post, partial(check, waited))

    later(LOOK_GRACE, LOOK_GRACE)


def answer(
    card: Card,
    chosen: tuple[Handler, Reason, str] | None,
    *,
    server: str,
    style: CallStyle | None,
    show: Callable[[Card], None] | None = None,
    tell: Callable[[str], None] | None = None,
    request: PendingRequest | None = None,
    interrupted: bool = False,
) -> None:
    """The one way a card is answered: show it, then the chosen handler (`pick_handler`), else the person,
    else a headless policy.

    Args:
        card: The form or card, already wired to its request.
        chosen: What `pick_handler` chose (None: nobody instead of the person).
        server: The asking server's name (for the log).
        style: How the caller waits (None: no call is known; the background check is skipped).
        show: Shows the card where the call is (None: it is shown already).
        tell: Shows a line of text there (a handler's failure).
        request: The request the card answers (its generation says whether an interrupt drops the call).
        interrupted: An interrupt was taken (deferred) while building the card: end it as interrupted now.

    A KeyboardInterrupt while showing or answering ends the card as interrupted, any other error as a client
    error, and is raised again (the waiting cell must see it).
    """
    try:
        if interrupted:
            raise KeyboardInterrupt
        if show is not None:
            kernel.track_views(card)
            show(card)
        _Answering(card, server, style, tell).start(chosen)
    except BaseException as exc:  # an interrupt can land here, inside a blocked cell's pump
        if isinstance(exc, KeyboardInterrupt):
            dropped = request is not None and not request.legacy
            note = "the call was dropped" if dropped else ""  # the reason already says "interrupted"
            card.finish(Action.CANCEL, reason=Reason.INTERRUPT, note=note)
        else:
            card.finish(Action.CANCEL, reason=Reason.ERROR, note=f"client error: {type(exc).__name__}")
        raise


class _Answering:
    """One card on its way to an answer: its handler's run, then the person (or a headless policy)."""

    def __init__(
        self, card: Card, server: str, style: CallStyle | None, tell: Callable[[str], None] | None
    ) -> None:
        self.card = card
        self.server = server
        self.style = style
        self.tell = tell

    def start(self, chosen: tuple[Handler, Reason, str] | None) -> None:
        if chosen is None:
            self.await_person()
            return
        handler, reason, by = chosen
        blocked = self.style == "sync" and kernel.kernel_support() != "none"
        done = partial(self.handler_done, by)
        HandlerRun(handler, self.card, reason, by, done, can_suspend=not blocked).start()

    def handler_done(self, by: str, exc: BaseException | None) -> None:
        card = self.card
        if exc is not None:
            failed = card.finish(
                Action.CANCEL, reason=Reason.ERROR, by=by, note=f"handler failed: {type(exc).__name__}"
            )
            if failed and self.tell is not None:
                self.tell(f"Handler {by!r} failed: {describe_exc(exc)}")
            log.warning("handler %r failed on a request from %s", by, self.server, exc_info=exc)
            return
        if card.outcome is None:  # left pending: the person answers, if anyone is looking
            self.await_person()

    def await_person(self) -> None:
        """Nobody has answered yet: wait for the person, unless no frontend ever shows the card."""
        card = self.card
        support = kernel.kernel_support()
        if support == "none" and kernel.in_marimo():
            self.in_marimo()
            return
        if support == "none":
            if console.available():
                console.ask(card)
                return
            card.finish(
                Action.DECLINE,
                reason=Reason.POLICY,
                by="headless",
                note="no notebook or terminal to ask in; pass handler= or set MCP_WIDGETS_HANDLER",
            )
            return
        if support == "background" and self.style is not None and self.style != "background":
            card.finish(
                Action.DECLINE,
                reason=Reason.POLICY,
                by="mcp-widgets",
                note="this kernel cannot deliver clicks to a running cell; use call_tool_background",
            )
            return
        decline_if_unseen(card)

    def in_marimo(self) -> None:
        """marimo hands a running cell no widget message: a question asked while a cell waits for its call
        (awaited, blocking, `connect`'s sign-in) could never be answered. Declined at once, and the cell
        says so in one line, with the call style that can be answered there."""
        card = self.card
        if self.style == "background":
            from ...widgets import CallLine

            if CallLine.shows(card):  # drawn in the call's line, which its cell shows: answered once the cell
                return  # returned (no view of the card's own reports in: it is drawn inside the line's)
            card.finish(
                Action.DECLINE,
                reason=Reason.POLICY,
                by="mcp-widgets",
                note=f"marimo cannot show this {_noun(card)} yet (it renders anywidgets only)",
            )
            return
        if card.kind == "signin":
            note = "marimo delivers no click to a running cell"
            line = (
                f"mcp-widgets: signing in to {self.server!r} needs a click on its card, and marimo delivers "
                "no click to a running cell: the sign-in was refused (its error says how to sign in without "
                "a click)"
            )
        else:
            note = "marimo delivers no click to a running cell; use call_tool_background"
            line = (
                f"mcp-widgets: {self.server!r} asked a question while this cell ran, and marimo delivers no "
                f"click to a running cell, so the {_noun(card)} was declined: to answer questions in marimo, "
                "start the call with srv.call_tool_background(...) (or get_prompt_background, "
                "read_resource_background, read_template_background)"
            )
        if card.finish(Action.DECLINE, reason=Reason.POLICY, by="mcp-widgets", note=note):
            kernel.say(line)


class Presented(Protocol[C]):
    """What `present` is given: one card's way from built to answered, each step a method (a form's
    `FormQuestion`, a URL card's `UrlQuestion`, the sign-in card's `SignInQuestion`). Accept is followed
    from the click to where its answer goes in one step: the card's first done callback is `deliver`."""

    @property
    def server(self) -> str:
        """The asking server's name (for the log)."""
        ...

    @property
    def chosen(self) -> tuple[Handler, Reason, str] | None:
        """What `pick_handler` chose (None: the person, else a headless policy)."""
        ...

    @property
    def style(self) -> CallStyle | None:
        """How the caller waits (None: no call is known)."""
        ...

    @property
    def request(self) -> PendingRequest | None:
        """The request the card answers (its generation says whether an interrupt drops the call)."""
        ...

    @property
    def shown(self) -> bool:
        """The card is on screen already (a URL card's next round): it is not placed again."""
        ...

    def build(self) -> C | None:
        """The card (None: building failed, and the request was answered so)."""
        ...

    def prepare(self, card: C) -> None:
        """Before anyone can see it (a sign-in card learns where its paste and Cancel go)."""
        ...

    def deliver(self, card: C) -> None:
        """The card ended: its answer goes where it is awaited (the server, the sign-in)."""
        ...

    def write_history(self, card: C) -> None:
        """Its history entry, which the card finishes once its answer went out."""
        ...

    def place(self, card: C) -> None:
        """Show the card where the call is."""
        ...

    def tell(self, text: str) -> None:
        """Show a line of text there (a handler's failure)."""
        ...

    def ask(self, card: C) -> bool:
        """Whether anyone is asked (False: the card is only placed, its closing line says why)."""
        ...


def present(question: Presented[C]) -> C | None:
    """Present a card (see the module's docstring); returns it, or None when building it failed (`build`
    has answered the request then)."""
    with kernel.interrupt_deferred() as deferred:
        card = question.build()
        if card is not None:
            question.prepare(card)
            card.add_done_callback(question.deliver)
            question.write_history(card)
    place = None if question.shown else question.place
    if card is None or not question.ask(card):
        if card is not None and place is not None:
            place(card)
        deferred.deliver()
        return card
    try:
        answer(
            card,
            question.chosen,
            server=question.server,
            style=question.style,
            show=cast("Callable[[Card], None] | None", place),
            tell=question.tell,
            request=question.request,
            interrupted=bool(deferred),
        )
    except KeyboardInterrupt:
        if not deferred:
            raise
        # The card ended as interrupted; the interrupt itself goes where it was headed. Raised from an
        # awaiting cell's event loop, a KeyboardInterrupt would end the kernel, not the cell.
        deferred.deliver()
    return card
