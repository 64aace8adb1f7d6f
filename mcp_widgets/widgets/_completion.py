"""Suggestions as the person types: a prompt's or template's text field offers the server's completions.

Where the server declares `completions`, each text field of a prompt or template form has a `Suggester`:
every change of its value (a keystroke, `fill()`) asks the server through `ask` (the client room's: it waits
a few tens of milliseconds on the client thread first, so a burst of keystrokes sends one request, and
cancels the request a newer keystroke replaces), with the other fields' current text as context. The newest
answer is drawn under the field by a `SuggestList`; an older one that arrives late, a slow server or a
failing one never blocks typing and never raises into the cell: a failure shows no suggestions.

Why a view of our own (anywidget) and not ipywidgets' `Combobox`: the Combobox draws its options with a
native `<datalist>`, whose popup is the browser's own (headless Chromium draws none, and a test can neither
see nor drive it), it filters the options itself (by substring: a server's order and choice are lost) and
it has no place for "3 of 12". `SuggestList` is a plain list under the input (role listbox, the input a
combobox pointing at it): its arrows, Enter and Escape are handled on the input before the form or the
notebook sees them, so Enter picks and never runs the form, and a browser test drives it like a person.

A value is drawn as its `Completion.labels` entry (escapes visible, one line, shortened), and a pick (Enter,
a click: the list sends its index) inserts the server's value itself.

Privacy: what is typed goes to the server (as for Run) and nowhere else. The list's values (the server's,
usually extending what was typed) are in the list's model only while it is open: closing it (Escape,
leaving the field, a pick) empties it, and closing the form closes it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

import traitlets as t

from .. import kernel
from ..core.completion import Ask, Completion
from ._fields import Field, Kit
from ._keys import DeclaredAnyWidget
from ._keys_assets import FLUSH_JS, asset

__all__ = ["SuggestList", "Suggester"]

log = logging.getLogger("mcp_widgets")

SUGGEST_CLASS = "mcp-widgets-suggest-for-"
"""The start of the class naming the control a list serves (a number follows)."""


class SuggestList(DeclaredAnyWidget):
    """The list under a text field: the server's values as literal text, "3 of 12" under them."""

    values = t.List(
        t.Unicode(), help="The values as drawn (`Completion.labels`; empty: the list is closed)."
    ).tag(sync=True)
    count = t.Unicode("", help='How many, as a person reads it ("3 of 12").').tag(sync=True)
    answer = t.Int(0, help="A new number with each answer: the view draws it.").tag(sync=True)
    for_class = t.Unicode("", help="The class of the control whose input the list serves.").tag(sync=True)
    _esm = t.Unicode(FLUSH_JS + asset("suggest.js"), help="Draws the list, its keys.").tag(sync=True)
    _css = t.Unicode(asset("suggest.css"), help="The list's look.").tag(sync=True)
    _anywidget_id = t.Unicode(f"{__name__}.SuggestList", help="anywidget's class name.").tag(sync=True)

    def __repr__(self) -> str:
        return f"<SuggestList {len(self.values)} values>"


def _done() -> concurrent.futures.Future[None]:
    done: concurrent.futures.Future[None] = concurrent.futures.Future()
    done.set_result(None)
    return done


def _count_line(completion: Completion) -> str:
    """ "2 suggestions", "1 suggestion", "3 of 12 suggestions", "100 and more suggestions"."""
    text = completion.count_text
    return f"{text} suggestion" if text == "1" else f"{text} suggestions"


class Suggester:
    """One text field's suggestions: asks on each change of its value, shows the newest answer.

    Args:
        field: The field (a text one).
        argument: The name sent as the argument completed.
        ask: Asks the server (see `Ask`).
        context: The other fields' current text (sent as context.arguments).
        kit: The form's kit (the list is one of its models).
    """

    def __init__(
        self, field: Field, argument: str, ask: Ask, context: Callable[[], dict[str, str]], kit: Kit
    ) -> None:
        self.field = field
        self.argument = argument
        self._ask = ask
        self._context = context
        marker = SUGGEST_CLASS + uuid.uuid4().hex[:12]
        field.control.add_class(marker)
        self.view = kit.make(SuggestList, layout="note", for_class=marker)
        self.view.on_msg(self._message)
        self.shown: Completion | None = None
        """The answer the list shows now (None: nothing shown)."""
        self.closed = False
        self._token = 0
        self._pending: concurrent.futures.Future[Completion] | None = None
        self._applied = _done()
        self._picked: str | None = None
        field.control.observe(self._changed, names="value")

    # -- asking ----------------------------------------------------------------------------------------------
    def _changed(self, change: Mapping[str, Any]) -> None:
        value = change.get("new")
        picked, self._picked = self._picked, None
        if self.closed or not isinstance(value, str) or value == picked:
            return
        self.ask(value)

    def ask(self, value: str) -> None:
        """Ask for `value` (the field's text now); the answer replaces what the list shows."""
        self._token += 1
        token = self._token
        self._drop_pending()
        applied = self._applied = concurrent.futures.Future()
        try:
            pending = self._ask(self.argument, value, self._context())
        except Exception:  # not connected, ...: no suggestions, and typing goes on
            log.debug("asking for suggestions failed")
            self._show(None, applied)
            return
        self._pending = pending
        pending.add_done_callback(lambda f: kernel.post(lambda: self._answered(f, token, applied)))

    def _drop_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.cancel()
        if not self._applied.done():
            self._applied.set_result(None)  # its waiters look again (a newer one replaces it)

    def _answered(self, pending: Future[Completion], token: int, applied: Future[None]) -> None:
        """Main thread: show the answer, unless a newer keystroke asked since (or the form closed)."""
        if token != self._token or self.closed:
            return
        self._pending = None
        completion = None
        if not pending.cancelled():
            if pending.exception() is None:
                completion = pending.result()
            else:  # a slow or failing server: no suggestions (its message is the client's, never raised)
                log.debug("suggestions for a field failed (%s)", type(pending.exception()).__name__)
        self._show(completion, applied)

    def _show(self, completion: Completion | None, applied: concurrent.futures.Future[None] | None) -> None:
        self.shown = completion if completion is not None and completion.values else None
        shown = self.shown
        view = self.view
        if view.comm is not None:
            with view.hold_sync():
                view.values = shown.labels if shown is not None else []  # a pick inserts shown.values[i]
                view.count = _count_line(shown) if shown is not None else ""
                view.answer += 1
        if applied is not None and not applied.done():
            applied.set_result(None)

    # -- driving it ------------------------------------------------------------------------------------------
    async def wait(self) -> Completion | None:
        """What the list shows once the newest ask is answered (None: nothing)."""
        while True:
            applied = self._applied
            await kernel.wait_async(applied)
            if applied is self._applied:
                return self.shown

    def pick(self, value: str) -> None:
        """Pick `value` from the list, as Enter or a click does: the field takes it, the list closes.

        Raises:
            ValueError: `value` is not one the list shows.
        """
        shown = self.shown
        if shown is None or value not in shown.values:
            raise ValueError(f"the list of {self.field.spec.title!r} shows no such value")
        self._token += 1  # an answer still on its way is for what was typed before
        self._drop_pending()
        if self.field.control.value != value:
            self._picked = value  # the change this makes asks nothing
        self.field.enter(value)()
        self._show(None, None)

    def _message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if self.closed or not isinstance(content, dict):
            return
        index = content.get("pick")
        if isinstance(index, int) and not isinstance(index, bool):
            shown = self.shown
            if shown is not None and 0 <= index < len(shown.values):
                self.pick(shown.values[index])
        elif content.get("ask") is True:  # ArrowDown on a closed list: what the field holds now
            value = self.field.control.value
            if isinstance(value, str):
                self.ask(value)
        elif content.get("closed") is True:
            self._token += 1
            self._drop_pending()
            self._show(None, None)  # the values leave the model once the list is closed

    def close(self) -> None:
        """Ask nothing more (the list's model closes with the form's kit)."""
        self.closed = True
        self._drop_pending()
        self.shown = None
