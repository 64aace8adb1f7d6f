"""Keyboard for forms: one invisible anywidget, shared by every form and URL card of the process, listening
on each form's element (stock widgets can't see keys).

The same model is a child of every pending form's box, and each box renders its own view of it. A form's box
carries the class "mcp-widgets-keys-<its model id>" (`KeyRoute.token`); each view reads it from its box, gets
the form's own model from the widget manager and talks through it (never through the shared model), and the
form's `KeyRoute` takes those messages. In the browser each view
- focuses the first field's input once the form is on screen, unless the person is editing something else
  (the focus rule is in the ESM); Tab then follows the schema order (the order of the form's children),
- sends ``{"key": "Escape"}`` when Escape is pressed anywhere in the form, and
- sends ``{"key": "Enter", "in_last_field": true}`` when Enter is pressed in the last field's input, and
- says ``{"ready": true}`` once it has the form's model, and answers the form's flush probes
  (`KeyRoute.after_flush`) once the kernel has said idle for every update of the form's controls.

Python decides what a key does (the form presses its own buttons), so a disabled Accept stays disabled.
The same ESM also carries the form's little CSS: Labels wrap instead of being cut off, titles wrap inside the
form's title column, and a radio option whose title wraps grows instead of overlapping the next one.
One shared model means its code and CSS reach the browser once per process, not with every form.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

import anywidget
import traitlets as t

from ._fields import (
    _SHARED,
    _SHARED_LOCK,
    FIRST_CLASS,
    FORM_CLASS,
    LAST_CLASS,
    TITLE_GAP,
    WRAP_CLASS,
    Kit,
    known_keys,
)

__all__ = [
    "FLUSH_JS",
    "KEYS_CLASS",
    "DeclaredAnyWidget",
    "FlushProbe",
    "Flushes",
    "KeyCatcher",
    "KeyRoute",
    "shared_catcher",
]

KEYS_CLASS = "mcp-widgets-keys-"
"""The start of the class that names a form's box to the shared KeyCatcher's views (a number follows)."""

# Flush probes (see Flushes). `flushAnswerer` makes the "msg:custom" handler that answers them through
# `channel` while `alive()`: a reply leaves after every widget update sent before it and, given the form (its
# model, or a promise of it), only once the kernel has said idle for every update of the form's controls (at
# most 5 s): the kernel may handle different comms on different threads, so arriving after them is not enough.
_FLUSH_ANSWERER_JS = """
function flushAnswerer(channel, form, alive) {
  let known = form && typeof form.then !== "function" ? form : null;
  if (form && !known) form.then((found) => { known = found; }, () => {});
  return (msg) => {
    if (!msg || typeof msg.flush !== "number") return;
    const until = Date.now() + 5000;
    const reply = () => {
      if (!alive()) return;
      const busy = known && (known.get("children") || []).some((m) => m && m._pending_msgs > 0);
      if (busy && Date.now() < until) setTimeout(reply, 5);
      else channel.send({ flushed: msg.flush });
    };
    reply();
  };
}
"""
# `answerFlushes` is the whole job for a view with its own channel: it says "ready" and returns its stop.
FLUSH_JS = (
    _FLUSH_ANSWERER_JS
    + """
function answerFlushes(model, form) {
  let alive = true;
  const onFlush = flushAnswerer(model, form, () => alive);
  model.on("msg:custom", onFlush);
  model.send({ ready: true });
  return () => {
    alive = false;
    model.off("msg:custom", onFlush);
  };
}
"""
)

_ESM = f"""{_FLUSH_ANSWERER_JS}
// Focus rule: a form takes focus once, when it first shows, and only if that takes nobody's typing away:
// - nothing has focus (document.body), or
// - what has focus is not something one types into (a notebook or cell in command mode, a button), or
// - it is the editor of the form's own cell (the person just ran that cell with Ctrl+Enter), or
// - it is the still empty editor of the cell right below (Shift+Enter on the last cell makes one).
// So a form that appears from a background call while the person edits another cell, fills in another form
// (even one in the same output) or types in any other input, leaves their focus where it is; they reach
// the form with the mouse or Tab.
const EDITABLE = ["INPUT", "TEXTAREA", "SELECT", "IFRAME"];
function mayTakeFocus(box) {{
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {{
    active = active.shadowRoot.activeElement;
  }}
  if (!active || active === document.body || active === document.documentElement) return true;
  if (!active.isContentEditable && !EDITABLE.includes(active.tagName)) return true;
  const cell = box.closest(".jp-Cell");
  if (!cell || active.closest(".jp-OutputArea")) return false;
  if (cell.contains(active)) return true;
  const below = cell.nextElementSibling;
  return Boolean(below && below.contains(active) && active.isContentEditable && !active.textContent.trim());
}}

// The model id of the form's box: in the class of the box that starts with KEYS_CLASS (one helper model
// serves every form, so it talks to each form through the form's own model).
function boxIdOf(box) {{
  const name = Array.from(box.classList).find((name) => name.startsWith("{KEYS_CLASS}"));
  return name ? name.slice({len(KEYS_CLASS)}) : null;
}}

// The view is hidden; its parent element is the form's box. Listen there in the capture phase: stock text
// inputs stop keydown from bubbling (so the notebook's shortcuts leave them alone). Every message goes
// through the form's own model (its comm keeps the order of the form's other messages in the kernel);
// nothing is sent before that model is known.
function render({{ model, el }}) {{
  let box = null;
  let form = null;  // the form's model
  let looking = false;
  let stopped = false;
  let listening = false;
  const send = (msg) => form.send(msg);
  const onKey = (event) => {{
    if (event.isComposing) return;
    if (event.key === "Escape") {{
      event.preventDefault();
      event.stopPropagation();  // keep the notebook from taking Escape for itself
      send({{ key: "Escape" }});
    }} else if (event.key === "Enter" && event.target.closest && event.target.closest(".{LAST_CLASS}")) {{
      event.preventDefault();
      event.stopPropagation();
      send({{ key: "Enter", in_last_field: true }});
    }}
  }};
  let onFlush = null;
  const found = (boxModel) => {{
    if (stopped || !boxModel) return;
    form = boxModel;
    // Flush probe (see KeyRoute.after_flush): answer only those for this view's form.
    onFlush = flushAnswerer(form, form, () => !stopped);
    form.on("msg:custom", onFlush);
    if (!box.dataset.mcpWidgetsKeys) {{
      box.dataset.mcpWidgetsKeys = "1";
      box.addEventListener("keydown", onKey, true);
      listening = true;
    }}
    send({{ ready: true }});
  }};
  // Children views are attached after they render: wait (a few frames at most) for the box and first input.
  let frames = 0;
  const attach = () => {{
    box = box || el.parentElement;
    const id = box && !looking && boxIdOf(box);
    if (id) {{
      looking = true;
      Promise.resolve(model.widget_manager.get_model(id)).then(found, () => {{}});
    }}
    const first = box && box.querySelector(".{FIRST_CLASS} input, .{FIRST_CLASS} select");
    if (first) {{
      if (mayTakeFocus(box)) first.focus({{ preventScroll: true }});
    }} else if (frames++ < 120) requestAnimationFrame(attach);
  }};
  requestAnimationFrame(attach);
  return () => {{
    stopped = true;
    if (form) form.off("msg:custom", onFlush);
    if (listening) {{
      box.removeEventListener("keydown", onKey, true);
      delete box.dataset.mcpWidgetsKeys;
    }}
  }};
}}
export default {{ render }};
export {{ mayTakeFocus, boxIdOf }};  // for the tests
"""

# Selectors name both the current (jupyter-widget-*) and the deprecated (widget-*) stock classes.
_F = f".{FORM_CLASS}"
_CSS = f"""
/* Plain-text Labels of a form wrap instead of being cut off with an ellipsis. */
.{WRAP_CLASS}.jupyter-widget-label, .{WRAP_CLASS}.widget-label {{
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  overflow: visible;
  height: auto;
  line-height: 1.4;
}}
/* Fields use the width of the form (up to 48em). The stock radio buttons are not an inline hbox: make them
   one, so their title sits in the title column like every other control's. */
{_F} > .jupyter-widget-inline-hbox, {_F} > .widget-inline-hbox, {_F} > .widget-radio {{
  width: auto;
  max-width: 48em;
}}
/* A row grows with a title that wraps (date pickers, dropdowns and checkboxes have a fixed stock height). */
{_F} > .widget-inline-hbox:not(.widget-label),
{_F} > .jupyter-widget-inline-hbox:not(.jupyter-widget-label) {{
  height: auto;
}}
{_F} .widget-dropdown > select, {_F} .jupyter-widget-dropdown > select {{
  height: var(--jp-widgets-inline-height);
}}
{_F} > .widget-radio {{
  display: flex;
  flex-direction: row;
  align-items: flex-start;  /* a radio box has no useful baseline: line the title up with the first option */
  height: auto;
  margin: var(--jp-widgets-margin);
}}
{_F} > .widget-radio > .widget-label {{
  text-align: right;
  padding: 2px 0;  /* as an option's */
}}
/* Titles: the width of the form's title column (a shared description_width), wrapping inside it, never cut.
   "pretty" wrapping keeps the required marker "*" from ending up alone on a line. */
{_F} > .jupyter-widget-inline-hbox > .jupyter-widget-label,
{_F} > .widget-inline-hbox > .widget-label,
{_F} > .widget-radio > .widget-label {{
  display: block;
  flex-shrink: 0;
  white-space: normal;
  overflow-wrap: anywhere;
  text-wrap: pretty;
  overflow: visible;
  height: auto;
  line-height: 1.4;
  margin-right: {TITLE_GAP};
}}
/* A checkbox's title is beside the box: let it wrap too. */
{_F} .widget-checkbox .widget-label-basic, {_F} .jupyter-widget-checkbox .jupyter-widget-label-basic {{
  white-space: normal;
  overflow-wrap: anywhere;
  height: auto;
  line-height: 1.4;
}}
/* Radio options: a title that wraps makes its option taller (the stock height is fixed, so a long title ran
   over the options below it); the button stays on the first line, the text wraps beside it. */
{_F} .widget-radio-box, {_F} .jupyter-widget-radio-box {{
  flex: 1 1 auto;
  min-width: 0;
  margin-bottom: 0 !important;  /* the stock view pads to a multiple of a line height it assumes */
}}
{_F} .widget-radio-box label, {_F} .jupyter-widget-radio-box label {{
  display: flex;
  align-items: flex-start;
  height: auto;
  min-height: var(--jp-widgets-radio-item-height);
  line-height: 1.4;
  padding: 2px 0;
  box-sizing: border-box;
  white-space: normal;
  overflow-wrap: anywhere;
}}
{_F} .widget-radio-box input, {_F} .jupyter-widget-radio-box input {{
  order: -1;
  float: none;
  flex: none;
  height: 1.4em;
  margin: 0 8px 0 1px;
}}
/* In a narrow output (a side panel) the title column would squeeze the controls: put titles above them. The
   title width and the notes' indent are inline styles set from Python, hence !important. */
{_F} {{
  container-type: inline-size;
}}
@container (max-width: 32em) {{
  {_F} > .jupyter-widget-inline-hbox, {_F} > .widget-inline-hbox, {_F} > .widget-radio {{
    flex-direction: column;
    align-items: stretch;
  }}
  {_F} > .jupyter-widget-inline-hbox > .jupyter-widget-label,
  {_F} > .widget-inline-hbox > .widget-label,
  {_F} > .widget-radio > .widget-label {{
    width: auto !important;
    text-align: left;
    margin-right: 0;
  }}
  {_F} > .widget-checkbox {{
    flex-direction: row;
  }}
  {_F} > .widget-checkbox > .widget-label {{
    display: none !important;  /* the empty indent */
  }}
  {_F} > .{WRAP_CLASS} {{
    margin-left: var(--jp-widgets-margin) !important;
  }}
}}
/* The date-time picker fills its row like the other inputs. */
{_F} .widget-datetimepicker input, {_F} .jupyter-widget-datetimepicker input {{
  flex: 1 1 auto;
  min-width: 0;
  height: var(--jp-widgets-inline-height);
  box-sizing: border-box;
}}
"""


class DeclaredAnyWidget(anywidget.AnyWidget):  # type: ignore[misc]
    """An anywidget that declares `_esm`, `_css` and `_anywidget_id` as traits of its class.

    Otherwise AnyWidget.__init__ adds them to every instance, which makes a new class for each widget.
    """

    def add_traits(self, **traits: Any) -> None:
        """Add only traits the class does not declare (AnyWidget.__init__ adds `_anywidget_id` every time)."""
        new = {name: trait for name, trait in traits.items() if not self.has_trait(name)}
        if new:
            super().add_traits(**new)


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


class KeyCatcher(DeclaredAnyWidget):
    """The invisible keyboard helper every form and URL card shares (see `shared_catcher`).

    It only brings the front-end code and CSS: each view talks to its form through the form's own model
    (see `KeyRoute`), so nothing is sent on this one.
    """

    _esm = t.Unicode(_ESM, help="Focus, keys and flush probes (see the module docstring).").tag(sync=True)
    _css = t.Unicode(_CSS, help="The CSS of every form.").tag(sync=True)
    _anywidget_id = t.Unicode(f"{__name__}.KeyCatcher", help="anywidget's name for the class.").tag(sync=True)

    def __repr__(self) -> str:
        return "<KeyCatcher>"


_CATCHER_KEY = (KeyCatcher, ())
_CATCHER_LOCK = threading.Lock()


def shared_catcher() -> KeyCatcher:
    """The process-wide KeyCatcher, made the first time it is needed (and again when it was closed).

    It is one of `shared_models()`: no form closes it.
    """
    catcher = _SHARED.get(_CATCHER_KEY)
    if _alive(catcher):
        return catcher  # type: ignore[return-value]
    with _CATCHER_LOCK:
        catcher = _SHARED.get(_CATCHER_KEY)
        if not _alive(catcher):  # new, or closed from outside (e.g. Widget.close_all())
            if catcher is not None:
                catcher.close()  # its Layout alone was closed: nothing should use it any more
            layout = Kit().layout("hidden")  # takes _SHARED_LOCK: not held here
            catcher = KeyCatcher(layout=layout, **known_keys(KeyCatcher))
            with _SHARED_LOCK:
                _SHARED[_CATCHER_KEY] = catcher
        return catcher  # type: ignore[return-value]


def _alive(catcher: Any) -> bool:
    return catcher is not None and catcher.comm is not None and catcher.layout.comm is not None


class KeyRoute:
    """One form's end of the shared KeyCatcher: the class naming its box, its key handler, its flush probes.

    The helper's views talk to a form through the form's own model, never the shared one: the kernel
    handles a comm's messages in order, but not necessarily in order with another comm's (ipykernel 7 may
    handle them on different threads). For the same reason a view answers a flush probe only once every
    update of the form's controls is acknowledged, not merely sent.
    Make the form with `model_id=route.model_id` and `token` among its classes, then `listen` on it.

    Args:
        on_key: Called with each key message from the form's views (a dict: ``key``, maybe ``in_last_field``).
    """

    def __init__(self, on_key: Callable[[dict[str, Any]], object]) -> None:
        self.catcher = shared_catcher()
        self.model_id = uuid.uuid4().hex
        self.token = f"{KEYS_CLASS}{self.model_id}"
        self._on_key: Callable[[dict[str, Any]], object] | None = on_key
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
        if isinstance(content, dict) and self._on_key is not None and not self._flushes.take(content):
            self._on_key(content)

    def close(self) -> None:
        """Stop: later messages are dropped, and no probe is sent or answered (the helper stays open)."""
        if self._box is not None:
            self._box.on_msg(self._receive, remove=True)
            self._box = None
        self._on_key = None
        self._flushes.stop()
