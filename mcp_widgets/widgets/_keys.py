"""Keyboard for forms: one invisible anywidget, shared by every form and URL card of the process, listening
on each form's element (stock widgets can't see keys).

The same model is a child of every pending form's box, and each box renders its own view of it. A form's box
carries the class "mcp-widgets-keys-<its model id>" (`KeyRoute.token`); each view reads it from its box, gets
the form's own model from the widget manager and talks through it (never through the shared model), and the
form's `KeyRoute` takes those messages. In the browser each view
- focuses the first field's input once the form shows, only in the cell the person just ran and stayed on,
  on screen, never in a mw.pending() list (the focus rule is in the ESM); Tab then follows the schema order,
- keeps the notebook's keys from answering: only once the person engaged the form (clicked, tabbed or typed
  there) does it send ``{"key": "Escape"}`` (with ``"typed": true`` once they typed or changed something)
  and ``{"key": "Enter", "in_last_field": true}`` for a plain Enter in the last field; Shift/Ctrl/Alt+Enter
  never; Escape in a form it focused by itself hands the keyboard back to the notebook instead, and focus in
  a form goes back where it came from once the form is answered, and
- says ``{"ready": true}`` once it has the form's model, and answers the form's flush probes
  (`KeyRoute.after_flush`) once the kernel has said idle for every update of the form's controls.

Python decides what a key does (the form presses its own buttons), so a disabled Accept stays disabled.
The same model also brings the forms' CSS (`assets/forms.css`): Labels wrap instead of being cut off,
titles wrap inside the form's title column, errors stand out, and a radio option whose title wraps grows
instead of overlapping the next one. Its ESM (`assets/keys.js`) also keeps aria-invalid in step with the
fields Python marks invalid.
One shared model means its code and CSS reach the browser once per process, not with every form.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import anywidget
import ipywidgets as w
import traitlets as t

from ..kernel.comms import closing
from ._keys_assets import CSS, ESM, FLUSH_JS, KEYS_CLASS, STYLE_ESM
from ._kit import SHARED, SHARED_LOCK, Kit, known_keys

__all__ = [
    "FLUSH_JS",
    "KEYS_CLASS",
    "DeclaredAnyWidget",
    "FlushProbe",
    "Flushes",
    "FormStyle",
    "KeyCatcher",
    "KeyRoute",
    "shared_catcher",
    "shared_helper",
]


class DeclaredAnyWidget(anywidget.AnyWidget):
    """An anywidget that declares `_esm`, `_css` and `_anywidget_id` as traits of its class.

    Otherwise AnyWidget.__init__ adds them to every instance, which makes a new class for each widget.
    """

    def add_traits(self, **traits: Any) -> None:
        """Add only traits the class does not declare (AnyWidget.__init__ adds `_anywidget_id` every time)."""
        new = {name: trait for name, trait in traits.items() if not self.has_trait(name)}
        if new:
            super().add_traits(**new)

    def close(self) -> None:
        # As `Lean.close`: a page may still message a question or a call's line the kernel just closed (a
        # view drawn again as its box changed, an edit in flight); that late message is not worth a log line.
        comm = self.comm
        if comm is not None and getattr(comm, "kernel", None) is not None:
            closing(comm.comm_id)
        super().close()


class Flushes:
    """One form's flush probes: whether a view of it listens, the newest probe, and what runs when answered.

    The widget front end holds a control's next update until the kernel says idle for its previous one, but
    sends a click at once, so a quick click can overtake the last keystrokes. A click from the browser is
    therefore taken only once a view has answered a probe sent after it (see `KeyRoute` for when it answers).
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

    A tool form takes no KeyCatcher: its result area holds the tool's own elicitation forms, and a catcher
    listening on the whole tool form would take their Escape and Enter.
    """

    _esm = t.Unicode(
        STYLE_ESM, help="Answers flush probes (once the form's controls are up to date); aria-invalid."
    ).tag(sync=True)
    _css = t.Unicode(CSS, help="The CSS of every form (wrapping labels, the title column).").tag(sync=True)
    _anywidget_id = t.Unicode(f"{__name__}.FormStyle", help="anywidget's name for this class.").tag(sync=True)

    def __repr__(self) -> str:
        return "<FormStyle>"


class KeyCatcher(DeclaredAnyWidget):
    """The invisible keyboard helper every form and URL card shares (see `shared_catcher`).

    It only brings the front-end code and CSS: each view talks to its form through the form's own model
    (see `KeyRoute`), so nothing is sent on this one.
    """

    _esm = t.Unicode(ESM, help="Focus, keys and flush probes (see the module docstring).").tag(sync=True)
    _css = t.Unicode(CSS, help="The CSS of every form.").tag(sync=True)
    _anywidget_id = t.Unicode(f"{__name__}.KeyCatcher", help="anywidget's name for the class.").tag(sync=True)

    def __repr__(self) -> str:
        return "<KeyCatcher>"


_SHARED_LOCK = threading.Lock()
H = TypeVar("H", bound=w.DOMWidget)


def shared_helper(kind: type[H]) -> H:
    """The process-wide invisible helper of `kind` (a `KeyCatcher`, an `ExplorerKeys`), made the first time
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


def shared_catcher() -> KeyCatcher:
    """The process-wide KeyCatcher (see `shared_helper`)."""
    return shared_helper(KeyCatcher)


def _alive(helper: Any) -> bool:
    return helper is not None and helper.comm is not None and helper.layout.comm is not None


class KeyRoute:
    """One form's end of the shared KeyCatcher: the class naming its box, its key handler, its flush probes.

    The helper's views talk to a form through the form's own model, never the shared one: the kernel
    handles a comm's messages in order, but not necessarily in order with another comm's (ipykernel 7 may
    handle them on different threads). For the same reason a view answers a flush probe only once every
    update of the form's controls is acknowledged, not merely sent.
    Make the form with `model_id=route.model_id` and `token` among its classes, then `listen` on it.

    Args:
        on_key: Called with each other message from the form's views (a dict: ``key``, maybe
            ``in_last_field``; a URL card's ``opened``).
        on_ready: Called each time a view of the form says it listens (a URL card then sends it its URL).
    """

    def __init__(
        self,
        on_key: Callable[[dict[str, Any]], object],
        on_ready: Callable[[], object] | None = None,
    ) -> None:
        self.catcher = shared_catcher()
        self.model_id = uuid.uuid4().hex
        self.token = f"{KEYS_CLASS}{self.model_id}"
        self._on_key: Callable[[dict[str, Any]], object] | None = on_key
        self._on_ready = on_ready
        self._box: Any = None
        self._flushes = Flushes()

    def __repr__(self) -> str:
        return f"<KeyRoute{'' if self._on_key else ' closed'}>"

    def listen(self, box: Any) -> None:
        """Take the messages the helper's views send through `box` (the form, made with `model_id`)."""
        self._box = box
        box.on_msg(self._receive)

    def after_flush(self, fn: Callable[[], object]) -> bool:
        """Run `fn` once the front end has sent every widget update it was holding back.

        A view of the form answers the probe only once the kernel has said idle for every update of the
        form's controls (at most 5 s), so all of them are handled by then. Returns False (and does not run
        `fn`) when no view of the form has said it is listening: then there is nobody to ask.
        """
        box = self._box
        if self._on_key is None or box is None or box.comm is None:
            return False
        return self._flushes.probe(box.send, fn)

    def _receive(self, _box: Any, content: Any, _buffers: Any) -> None:
        """A message from one of the form's views of the helper."""
        if not isinstance(content, dict) or self._on_key is None:
            return
        if not self._flushes.take(content):
            self._on_key(content)
        elif content.get("ready") is True and self._on_ready is not None:
            self._on_ready()

    def send(self, content: dict[str, Any]) -> bool:
        """Send `content` to the form's views of the helper; False once closed."""
        box = self._box
        if self._on_key is None or box is None or box.comm is None:
            return False
        box.send(content)
        return True

    def close(self) -> None:
        """Stop: later messages are dropped, and no probe is sent or answered (the helper stays open)."""
        if self._box is not None:
            self._box.on_msg(self._receive, remove=True)
            self._box = None
        self._on_key = self._on_ready = None
        self._flushes.stop()
