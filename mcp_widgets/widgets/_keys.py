"""Keyboard for a form: an invisible anywidget listening on the form's element (stock widgets can't see keys).

In the browser it
- focuses the first field's input once the form is on screen (Tab then follows the schema order, which is the
  order of the form's children),
- sends ``{"key": "Escape"}`` when Escape is pressed anywhere in the form, and
- sends ``{"key": "Enter", "in_last_field": true}`` when Enter is pressed in the last field's input.

Python decides what a key does (the form presses its own buttons), so a disabled Accept stays disabled.
The same ESM also carries the little CSS that lets the form's plain-text Labels wrap instead of being cut off.
"""

from __future__ import annotations

import anywidget

from ._fields import FIRST_CLASS, FORM_CLASS, LAST_CLASS, WRAP_CLASS

__all__ = ["KeyCatcher"]

_ESM = f"""
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
    if (first) first.focus({{ preventScroll: true }});
    else if (frames++ < 120) requestAnimationFrame(attach);
  }};
  requestAnimationFrame(attach);
  return () => {{
    if (box) {{
      box.removeEventListener("keydown", onKey, true);
      delete box.dataset.mcpWidgetsKeys;
    }}
  }};
}}
export default {{ render }};
"""

_CSS = f"""
/* Plain-text Labels of a form wrap instead of being cut off with an ellipsis. */
.{WRAP_CLASS}.jupyter-widget-label, .{WRAP_CLASS}.widget-label {{
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  overflow: visible;
  height: auto;
  line-height: 1.4;
}}
/* Fields use the width of the form (up to 48em); a long title wraps instead of squeezing the input. */
.{FORM_CLASS} > .jupyter-widget-inline-hbox, .{FORM_CLASS} > .widget-inline-hbox {{
  width: auto;
  max-width: 48em;
}}
.{FORM_CLASS} > .jupyter-widget-inline-hbox > .jupyter-widget-label,
.{FORM_CLASS} > .widget-inline-hbox > .widget-label {{
  max-width: 40%;
  white-space: normal;
  overflow-wrap: anywhere;
  height: auto;
}}
"""


class KeyCatcher(anywidget.AnyWidget):  # type: ignore[misc]
    """Invisible helper of one form; custom messages from it go to the form's handler."""

    _esm = _ESM
    _css = _CSS

    def __repr__(self) -> str:
        return "<KeyCatcher>"
