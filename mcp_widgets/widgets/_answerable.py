"""Answering: the life cycle every card shares (resolve once, wait, done callbacks, acting_as), whatever its
widget base (each card is one anywidget: the form, the URL card, the sign-in card)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from enum import Enum
from typing import Any, ClassVar, TypeVar

import mcp_types

from ..core.outcome import Action, Outcome, Reason, to_wire

__all__ = ["Answering", "FormState"]

log = logging.getLogger("mcp_widgets")

A = TypeVar("A", bound="Answering")
DoneCallback = Callable[[Any], object]
_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[mcp_types.ElicitResult]"]


class FormState(str, Enum):
    """Where a form is in its life: pending, then exactly one of the three answers."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"


_STATE_OF = {
    Action.ACCEPT: FormState.ACCEPTED,
    Action.DECLINE: FormState.DECLINED,
    Action.CANCEL: FormState.CANCELLED,
}


class Answering:
    """A card a person answers with one of three actions: it resolves once, then tells waiters and callbacks.

    It decides no widget base: a subclass is also a widget (a DOMWidget: `_view_count`, `comm`, `close`).
    Subclasses press their actions in `_press_action` and resolve in `_resolve` (checks of their own, then
    `_settle` under the lock and `_deliver` outside it).
    """

    _NOUN: ClassVar[str] = "form"
    """What it is called in a closing note: "the form was closed"."""
    _WHAT: ClassVar[str] = "an elicitation form"
    """What it is called in logs."""

    _view_count: int | None  # the DOMWidget trait: how many views the frontend has, when asked to count
    comm: Any

    def _start(self) -> None:
        """The life-cycle state of a new, pending box (call first in `__init__`)."""
        self._lock = threading.RLock()
        self._state = FormState.PENDING
        self._outcome: Outcome | None = None
        self._result: mcp_types.ElicitResult | None = None
        self._callbacks: list[DoneCallback] = []
        self._waiters: list[_Waiter] = []
        self._acting: tuple[Reason, str | None] = (Reason.PERSON, None)
        self._pressing = False  # inside `_press`: a click from Python, not from a browser
        self._press_resolved = False
        self._views_when_answered: int | None = None

    # -- what it shows ---------------------------------------------------------------------------------------
    @property
    def state(self) -> FormState:
        """PENDING until answered, then ACCEPTED, DECLINED or CANCELLED (a URL card: of its current round)."""
        return self._state

    @property
    def result(self) -> mcp_types.ElicitResult | None:
        """What the server receives, or None while pending."""
        return self._result

    @property
    def outcome(self) -> Outcome | None:
        """How the request ended, or None while pending."""
        return self._outcome

    @property
    def view_count(self) -> int | None:
        """How many views the browser has rendered (0 until some front-end shows it; once answered, then)."""
        return self._view_count if self._view_count is not None else self._views_when_answered

    # -- driving it as a person would ------------------------------------------------------------------------
    def decline(self) -> bool:
        """Click Decline; False once it is resolved."""
        return self._press_action(Action.DECLINE)

    def cancel(self) -> bool:
        """Click Cancel; False once it is resolved."""
        return self._press_action(Action.CANCEL)

    @contextlib.contextmanager
    def acting_as(self: A, reason: Reason | str, by: str | None = None) -> Iterator[A]:
        """Clicks made inside are recorded as `reason` / `by` (e.g. a handler) instead of the person."""
        previous = self._acting
        self._acting = (Reason(reason), by)
        try:
            yield self
        finally:
            self._acting = previous

    def finish(
        self,
        action: Action | str,
        *,
        reason: Reason | str = Reason.HANDLER,
        by: str | None = None,
        note: str = "",
    ) -> bool:
        """End it without a click (server withdrew, timeout, interrupt, policy).

        An accept only succeeds when a form is valid (a URL card: when its URL is allowed). Returns whether
        this call resolved it (False when it was not pending).
        """
        return self._resolve(Action(action), Reason(reason), by, note)

    # -- waiting for the answer ------------------------------------------------------------------------------
    async def wait(self) -> mcp_types.ElicitResult:
        """The result, once it resolves (from any asyncio loop, in any thread)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[mcp_types.ElicitResult] = loop.create_future()
        with self._lock:
            if self._result is not None:
                return self._result
            self._waiters.append((loop, future))
        return await future

    def add_done_callback(self, fn: DoneCallback) -> None:
        """Call `fn(self)` once when it resolves (at once if it already has)."""
        with self._lock:
            if self._state is FormState.PENDING:
                self._callbacks.append(fn)
                return
        self._call(fn)

    def close(self) -> None:
        """Close every model it still holds (a pending one is cancelled first)."""
        if getattr(self, "_state", None) is FormState.PENDING and self.comm is not None:
            # No closing line: everything goes (and nothing new is created, even from __del__).
            self._resolve(
                Action.CANCEL, Reason.HANDLER, None, f"the {self._NOUN} was closed", leave_line=False
            )
        self._close_parts()
        self._stop_counting_views()
        super().close()  # type: ignore[misc]  # the widget base's

    # -- for subclasses --------------------------------------------------------------------------------------
    def _close_parts(self) -> None:
        """Close the models it holds besides itself (none by default)."""

    def _press_action(self, action: Action) -> bool:
        """Press the button of `action` as a person would; False when it is disabled, missing or resolved."""
        raise NotImplementedError

    def _resolve(
        self, action: Action, reason: Reason, by: str | None, note: str, *, leave_line: bool = True
    ) -> bool:
        """Resolve with `action` unless it is resolved already or may not take that action."""
        raise NotImplementedError

    def _settle(
        self, action: Action, reason: Reason, by: str | None, note: str, content: dict[str, Any] | None
    ) -> tuple[mcp_types.ElicitResult, list[_Waiter], list[DoneCallback]]:
        """Record the answer (hold `self._lock`); returns what `_deliver` then hands out."""
        self._state = _STATE_OF[action]
        self._outcome = Outcome(action, reason, by, note)
        self._result = result = mcp_types.ElicitResult.model_validate(to_wire(action, content))
        callbacks, self._callbacks = self._callbacks, []
        waiters, self._waiters = self._waiters, []
        return result, waiters, callbacks

    def _deliver(
        self,
        settled: tuple[mcp_types.ElicitResult, list[_Waiter], list[DoneCallback]],
        *,
        stop_views: bool = True,
    ) -> None:
        """Hand the result to every waiter, then call every done callback (outside the lock).

        `stop_views`: then stop counting views (`_stop_counting_views`); False when the caller does it with
        its closing update, in the same message.
        """
        result, waiters, callbacks = settled
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody is waiting there any more
                loop.call_soon_threadsafe(_settle_future, future, result)
        for fn in callbacks:
            self._call(fn)
        if stop_views:
            self._stop_counting_views()

    def _stop_counting_views(self) -> None:
        """Ask the frontend to stop counting views, once nobody needs to know whether anyone looks.

        A frontend reports every view it removes (a re-rendered container, a cleared output) as a lower
        count. Removed just before the model closes, that report reaches a closed comm, and the kernel
        logs "No such comm" into JupyterLab's log. Sent before the views go, the stop prevents it.
        """
        if self._view_count is not None and self.comm is not None:
            self._views_when_answered = self._view_count
            self._view_count = None

    def _answerable(self) -> bool:
        """Whether an answer can still be taken."""
        return self._state is FormState.PENDING

    def _call(self, fn: DoneCallback) -> None:
        try:
            fn(self)
        except Exception:
            log.exception("a done callback of %s failed", self._WHAT)


def _settle_future(future: asyncio.Future[mcp_types.ElicitResult], result: mcp_types.ElicitResult) -> None:
    if not future.done():
        future.set_result(result)
