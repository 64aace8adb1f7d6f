"""The widget bases and helpers every view of ours shares: anywidgets that declare their module
(`DeclaredAnyWidget`), flush probes (`Flushes`, `FlushProbe`, a tool form's `FormStyle`) and process-wide
invisible helpers (`shared_helper`).

The keyboard of a question (focus, Enter, Escape; `assets/keys.js`) is joined into each card's own module
(the form, the URL card, the sign-in card, the inputs card) and listens on that card's own element: Python
decides what a key does, so a disabled Accept stays disabled. Each card once shared one invisible keyboard
model; no card is composed of stock widgets any more, so none does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anywidget
import ipywidgets as w
import traitlets as t

from ..kernel.comms import close_after_load, closing
from ..kernel.views import note_page
from ._keys_assets import CSS, FLUSH_JS, KEYS_CLASS, STYLE_ESM
from ._kit import SHARED, SHARED_LOCK, Kit, known_keys

__all__ = [
    "FLUSH_JS",
    "KEYS_CLASS",
    "DeclaredAnyWidget",
    "FlushProbe",
    "Flushes",
    "FormStyle",
    "shared_helper",
]


class DeclaredAnyWidget(anywidget.AnyWidget):
    """An anywidget that declares `_esm`, `_css` and `_anywidget_id` as traits of its class.

    Otherwise AnyWidget.__init__ adds them to every instance, which makes a new class for each widget.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not any("_anywidget_id" in vars(base) for base in cls.__mro__ if base is not DeclaredAnyWidget):
            # Declared here: anywidget adds it to each instance whose class lacks it, and traitlets then makes
            # a class per instance (the call's line lacked it: 4 of a question's 15 ms went to making classes)
            trait = t.Unicode(f"{cls.__module__}.{cls.__name__}", help="anywidget's name for this class.")
            trait.tag(sync=True).class_init(cls, "_anywidget_id")  # traitlets names only the body's traits
            cls._anywidget_id = trait

    def add_traits(self, **traits: Any) -> None:
        """Add only traits the class does not declare (AnyWidget.__init__ adds `_anywidget_id` every time)."""
        new = {name: trait for name, trait in traits.items() if not self.has_trait(name)}
        if new:
            super().add_traits(**new)

    _opened_at = 0.0
    """When its comm opened (`time.monotonic()`); 0 once a page has shown it loaded its module."""

    def open(self) -> None:
        super().open()
        self._opened_at = time.monotonic()

    def _handle_msg(self, msg: dict[str, Any]) -> None:
        # A message from our module (a custom one) or a view's count comes once the page loaded the module.
        data = msg.get("content", {}).get("data", {})
        if data.get("method") == "custom" or "_view_count" in data.get("state", {}):
            self._opened_at = 0.0
        if data.get("method") == "custom" and data.get("content") == {"here": True}:
            note_page()  # the page made this model (assets/question.js): nothing for the card itself
            return
        super()._handle_msg(msg)

    def close(self) -> None:
        # As `Lean.close`: a page may still message a question or a call's line the kernel just closed (a
        # view drawn again as its box changed, an edit in flight); that late message is not worth a log line.
        comm = self.comm
        if comm is None:
            return
        if getattr(comm, "kernel", None) is not None:
            closing(comm.comm_id)
        # A model closed as it opened (a quick call's line, a question a handler answered) would make a
        # page still loading its module report an error: the page hears of the close once it had the time.
        with close_after_load(comm, self._opened_at):
            super().close()


class Flushes:
    """One form's flush probes: whether a view of it listens, the newest probe, and what runs when answered.

    The widget front end holds a control's next update until the kernel says idle for its previous one, but
    sends a click at once, so a quick click can overtake the last keystrokes. A click from the browser is
    therefore taken only once a view has answered a probe sent after it (flush.js answers once the kernel
    has said idle for every update of the form's controls).
    """

    def __init__(self) -> None:
        self.ready = False
        """Whether a view has said it listens (nobody to ask otherwise)."""
        self.token = 0
        self._then: Callable[[], object] | None = None

    def probe(self, send: Callable[[dict[str, Any]], object], fn: Callable[[], object]) -> bool:
        """Send a probe with `send` and run `fn` once it is answered; False (and nothing sent, `fn` not run)
        when no view listens."""
        if not self.ready:
            return False
        self.token += 1
        self._then = fn  # a newer click replaces an older one still waiting
        send({"flush": self.token})
        return True

    def take(self, content: dict[str, Any]) -> bool:
        """Handle a view's "ready" or "flushed" message; False for any other message."""
        if content.get("ready") is True:
            self.ready = True
        elif "flushed" in content:
            fn = self._then
            if content["flushed"] == self.token and fn is not None:
                self._then = None  # several views answer: the first one counts
                fn()
        else:
            return False
        return True

    def stop(self) -> None:
        """Forget the waiting click, and ask nobody any more."""
        self.ready = False
        self._then = None


class FlushProbe(DeclaredAnyWidget):
    """An invisible anywidget whose view says when it is on screen and answers flush probes (`FLUSH_JS`):
    after the updates sent before them and, given `form_id`, once every update of that form's controls is
    acknowledged."""

    form_id = t.Unicode("", help="The model id of the box whose controls a probe waits for.").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.flushes = Flushes()

    def after_flush(self, fn: Callable[[], object]) -> bool:
        """Run `fn` once a view has answered a probe (see `Flushes.probe`)."""
        return self.comm is not None and self.flushes.probe(self.send, fn)

    def _handle_custom_msg(self, content: Any, buffers: Any) -> None:
        if not (isinstance(content, dict) and self.flushes.take(content)):
            super()._handle_custom_msg(content, buffers)


class FormStyle(FlushProbe):
    """Invisible: brings the forms' CSS (wrapping labels, the title column) and answers flush probes (a Run
    clicked right after typing waits for the last keystrokes), without the form's keyboard.

    A tool form takes no keyboard: its result area holds the tool's own elicitation forms, and keys listened
    for on the whole tool form would take their Escape and Enter.
    """

    _esm = t.Unicode(
        STYLE_ESM, help="Answers flush probes (once the form's controls are up to date); aria-invalid."
    ).tag(sync=True)
    _css = t.Unicode(CSS, help="The CSS of every form (wrapping labels, the title column).").tag(sync=True)
    _anywidget_id = t.Unicode(f"{__name__}.FormStyle", help="anywidget's name for this class.").tag(sync=True)

    def __repr__(self) -> str:
        return "<FormStyle>"


_SHARED_LOCK = threading.Lock()
H = TypeVar("H", bound=w.DOMWidget)


def shared_helper(kind: type[H]) -> H:
    """The process-wide invisible helper of `kind` (an `ExplorerKeys`), made the first time
    it is needed and again when it was closed (e.g. by `Widget.close_all()`).

    It is one of `shared_models()`: no form or explorer closes it.
    """
    key = (kind, ())
    helper = SHARED.get(key)
    if _alive(helper):
        return helper  # type: ignore[return-value]
    with _SHARED_LOCK:
        helper = SHARED.get(key)
        if not _alive(helper):
            if helper is not None:
                helper.close()  # its Layout alone was closed: nothing should use it any more
            layout = Kit().layout("hidden")  # takes SHARED_LOCK: not held here
            helper = kind(layout=layout, **known_keys(kind))
            with SHARED_LOCK:
                SHARED[key] = helper
        return helper  # type: ignore[return-value]


def _alive(helper: Any) -> bool:
    return helper is not None and helper.comm is not None and helper.layout.comm is not None
