"""Keyboard for a form: an invisible anywidget listening on the form's element (stock widgets can't see keys).

In the browser it
- focuses the first field's input once the form is on screen, unless the person is editing something else
  (the focus rule is in the ESM); Tab then follows the schema order (the order of the form's children),
- sends ``{"key": "Escape"}`` when Escape is pressed anywhere in the form, and
- sends ``{"key": "Enter", "in_last_field": true}`` when Enter is pressed in the last field's input, and
- says ``{"ready": true}`` when it renders and answers each flush probe (`KeyCatcher.after_flush`).

Python decides what a key does (the form presses its own buttons), so a disabled Accept stays disabled.
The same ESM also carries the form's little CSS: Labels wrap instead of being cut off, titles wrap inside the
form's title column, and a radio option whose title wraps grows instead of overlapping the next one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets as t

from ._fields import FIRST_CLASS, FORM_CLASS, LAST_CLASS, TITLE_GAP, WRAP_CLASS

__all__ = ["FLUSH_JS", "DeclaredAnyWidget", "FlushProbe", "KeyCatcher"]

# Flush probe (see FlushProbe.after_flush): say "ready" once on screen, then answer every probe. A reply
# leaves after every widget update sent before it.
FLUSH_JS = """
function answerFlushes(model) {
  const onFlush = (msg) => {
    if (msg && typeof msg.flush === "number") model.send({ flushed: msg.flush });
  };
  model.on("msg:custom", onFlush);
  model.send({ ready: true });
  return () => model.off("msg:custom", onFlush);
}
"""

_ESM = (
    FLUSH_JS
    + f"""
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

// The view is hidden; its parent element is the form's box. Listen there in the capture phase: stock text
// inputs stop keydown from bubbling (so the notebook's shortcuts leave them alone).
function render({{ model, el }}) {{
  let box = null;
  const onKey = (event) => {{
    if (event.isComposing) return;
    if (event.key === "Escape") {{
      event.preventDefault();
      event.stopPropagation();  // keep the notebook from taking Escape for itself
      model.send({{ key: "Escape" }});
    }} else if (event.key === "Enter" && event.target.closest && event.target.closest(".{LAST_CLASS}")) {{
      event.preventDefault();
      event.stopPropagation();
      model.send({{ key: "Enter", in_last_field: true }});
    }}
  }};
  // Children views are attached after they render: wait (a few frames at most) for the box and first input.
  let frames = 0;
  const attach = () => {{
    box = box || el.parentElement;
    if (box && !box.dataset.mcpWidgetsKeys) {{
      box.dataset.mcpWidgetsKeys = "1";
      box.addEventListener("keydown", onKey, true);
    }}
    const first = box && box.querySelector(".{FIRST_CLASS} input, .{FIRST_CLASS} select");
    if (first) {{
      if (mayTakeFocus(box)) first.focus({{ preventScroll: true }});
    }} else if (frames++ < 120) requestAnimationFrame(attach);
  }};
  requestAnimationFrame(attach);
  const stopAnswering = answerFlushes(model);
  return () => {{
    stopAnswering();
    if (box) {{
      box.removeEventListener("keydown", onKey, true);
      delete box.dataset.mcpWidgetsKeys;
    }}
  }};
}}
export default {{ render }};
export {{ mayTakeFocus }};  // for the tests
"""
)

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


class FlushProbe(DeclaredAnyWidget):
    """An invisible anywidget whose view says when it is on screen and answers flush probes (`FLUSH_JS`)."""

    # Plain class attributes, not traits: nothing to sync, and no cost when a form is built.
    _view_ready = False
    _flush_token = 0
    _after_flush: Callable[[], object] | None = None

    def after_flush(self, fn: Callable[[], object]) -> bool:
        """Run `fn` once the front end has sent every widget update it was holding back.

        The widget front end holds a control's next update until the kernel says idle for its previous one,
        but sends a click at once, so a quick click can overtake the last keystrokes. A view of ours answers
        this probe only after the kernel's earlier idle messages, hence after those updates. Returns False
        (and does not run `fn`) when no view of ours has said it is listening: then there is nobody to ask.
        """
        if not self._view_ready or self.comm is None:
            return False
        self._flush_token += 1
        self._after_flush = fn  # a newer click replaces an older one still waiting
        self.send({"flush": self._flush_token})
        return True

    def _handle_custom_msg(self, content: Any, buffers: Any) -> None:
        if isinstance(content, dict):
            if content.get("ready") is True:
                self._view_ready = True
                return
            if "flushed" in content:
                fn = self._after_flush
                if content["flushed"] == self._flush_token and fn is not None:
                    self._after_flush = None  # several views answer: the first one counts
                    fn()
                return
        super()._handle_custom_msg(content, buffers)


class KeyCatcher(FlushProbe):
    """Invisible helper of one form; custom messages from it go to the form's handler."""

    _esm = t.Unicode(_ESM, help="Focus, keys and flush probes (see the module docstring).").tag(sync=True)
    _css = t.Unicode(_CSS, help="The CSS of every form.").tag(sync=True)
    _anywidget_id = t.Unicode(f"{__name__}.KeyCatcher", help="anywidget's name for the class.").tag(sync=True)

    def __repr__(self) -> str:
        return "<KeyCatcher>"
