"""The browser side of the keyboard helper and the flush probe: their JavaScript (ESM) and the forms' CSS.

Kept as strings in one place (the `_keys` widgets send them once per process); the names they share with
Python (the CSS classes) come from `_kit`.
"""

from __future__ import annotations

from ._kit import FIRST_CLASS, FORM_CLASS, LAST_CLASS, TITLE_GAP, WRAP_CLASS

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
