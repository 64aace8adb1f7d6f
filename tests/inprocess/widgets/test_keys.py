"""The keyboard helper: one shared model, what its ESM listens for, and how each form handles its messages."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ipywidgets as w
import mcp_types
import pytest

from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, FormState, UrlCard
from mcp_widgets.widgets._fields import FIRST_CLASS, LAST_CLASS, TITLE_GAP, WRAP_CLASS
from mcp_widgets.widgets._keys_assets import CSS, ESM

from .conftest import schema

# The keyboard's front-end code (keys.js with the flush probes and option groups) and the forms' CSS.

FORM = schema(
    {"first": {"type": "string"}, "middle": {"type": "integer"}, "last": {"type": "string"}},
    required=["first"],
)


def press(form: ElicitationForm | UrlCard, content: object) -> None:
    """Deliver a message as the form's view of the shared helper sends it: through the form's own model."""
    form._handle_custom_msg(content, [])


def test_a_url_card_brings_the_keyboard_helpers_code_in_its_own_module() -> None:
    card = UrlCard("m", "https://example.com/", server="s")
    assert not hasattr(card, "_keys") and not hasattr(card, "children")  # one model: nothing shared to show
    assert card._esm == ElicitationForm("m", FORM, server="s")._esm  # the question card's one renderer
    assert "function mayTakeFocus" in card._esm and 'const OPEN_CLASS = "mcp-widgets-open"' in card._esm


def test_a_form_brings_the_keyboard_helpers_code_in_its_own_module() -> None:
    form = ElicitationForm("m", FORM, server="s")
    assert not hasattr(form, "_keys") and not hasattr(form, "children")  # one model: nothing shared to show
    assert (
        "function mayTakeFocus" in form._esm
        and "render({ model, el: null }, { box, form: model })" in form._esm
    )


def test_a_closed_url_card_takes_no_more_messages() -> None:
    card = UrlCard("m", "https://example.com/", server="s")
    card.close()
    assert card.result is not None and card.result.action == "cancel"
    press(card, {"press": "accept"})
    press(card, {"opened": "https://example.com/"})
    assert card.result.action == "cancel" and card.outcomes[-1].action is Action.CANCEL


def test_a_message_on_another_form_does_nothing_here() -> None:
    form = ElicitationForm("m", FORM, server="s")
    other = ElicitationForm("m", FORM, server="s")
    press(other, {"key": "Escape"})
    assert other.state is FormState.CANCELLED and form.state is FormState.PENDING


def test_first_and_last_fields_are_marked_for_focus_and_enter() -> None:
    esm = ElicitationForm("m", FORM, server="s")._esm
    # fields.js marks the first and last field rows; keys.js focuses the first, takes Enter in the last
    assert f'row.classList.add("{FIRST_CLASS}")' in esm and f'row.classList.add("{LAST_CLASS}")' in esm
    assert f".{LAST_CLASS}" in esm and f".{FIRST_CLASS} input" in esm


def test_the_esm_listens_on_the_parent_and_sends_only_escape_and_enter() -> None:
    esm = ESM
    assert "el.parentElement" in esm
    # capture phase: stock text inputs stop keydown from bubbling
    assert 'addEventListener("keydown", onKey, true)' in esm
    assert 'removeEventListener("keydown", onKey, true)' in esm
    assert f".{LAST_CLASS}" in esm and f".{FIRST_CLASS} input" in esm
    assert 'send(typed ? { key: "Escape", typed: true, edits } : { key: "Escape" })' in esm
    assert 'send({ key: "Enter", in_last_field: true })' in esm
    assert "form.send(msg)" in esm  # every message goes through the form's own model
    assert "export default" in esm
    assert f".{WRAP_CLASS}" in CSS


def test_escape_cancels_as_the_person() -> None:
    form = ElicitationForm("m", FORM, server="s")
    press(form, {"key": "Escape"})
    assert form.state is FormState.CANCELLED
    assert form.outcome == Outcome(Action.CANCEL, Reason.PERSON)


def test_enter_in_the_last_field_accepts_when_valid() -> None:
    form = ElicitationForm("m", FORM, server="s")
    press(form, {"key": "Enter", "in_last_field": True})
    assert form.state is FormState.PENDING  # "first" is required and empty: Accept is disabled
    form.fill(first="a", last="z")
    press(form, {"key": "Enter"})  # not from the last field: ignored
    assert form.state is FormState.PENDING
    press(form, {"key": "Enter", "in_last_field": True})
    assert form.result == mcp_types.ElicitResult(action="accept", content={"first": "a", "last": "z"})


def test_other_messages_are_ignored() -> None:
    form = ElicitationForm("m", FORM, server="s")
    for content in (
        {"key": "a"},
        {"key": "Tab"},
        {},
        "Escape",
        ["Escape"],
        {"key": "Enter", "in_last_field": 1},
    ):
        press(form, content)
    assert form.state is FormState.PENDING


def test_keys_inside_acting_as_are_recorded_for_the_handler() -> None:
    form = ElicitationForm("m", FORM, server="s")
    with form.acting_as(Reason.HANDLER, "robot"):
        press(form, {"key": "Escape"})
    assert form.outcome == Outcome(Action.CANCEL, Reason.HANDLER, by="robot")


def test_keys_after_resolution_do_nothing() -> None:
    form = ElicitationForm("m", FORM, server="s")
    form.decline()
    press(form, {"key": "Escape"})
    assert form.state is FormState.DECLINED
    assert form.closing_line.endswith("declined by the person")


# -- the focus rule, run in Node against a minimal DOM -------------------------------------------------------
FAKE_DOM = """
class El {
  constructor(tag, cls = [], parent = null, opts = {}) {
    this.tagName = tag; this.cls = cls; this.parent = parent; this.children = [];
    this.isContentEditable = Boolean(opts.editable); this.textContent = opts.text || "";
    if (parent) parent.children.push(this);
  }
  get classList() { return { contains: (name) => this.cls.includes(name) }; }
  matches(sel) { return sel.split(",").some((s) => this.cls.includes(s.trim().slice(1))); }
  closest(sel) { for (let e = this; e; e = e.parent) if (e.matches(sel)) return e; return null; }
  contains(other) { for (let e = other; e; e = e.parent) if (e === this) return true; return false; }
  querySelector(sel) {
    for (const child of this.children) {
      if (child.matches(sel)) return child;
      const found = child.querySelector(sel);
      if (found) return found;
    }
    return null;
  }
  get nextElementSibling() {
    const sibs = this.parent ? this.parent.children : []; return sibs[sibs.indexOf(this) + 1] || null;
  }
}
const body = new El("BODY");
const nb = new El("DIV", ["jp-Notebook"], body);
const cell = (i, classes = [], prompt = "[1]:") => {
  const c = new El("DIV", ["jp-Cell", ...classes], nb);
  const input = new El("DIV", ["jp-Cell-inputWrapper"], c);
  new El("DIV", ["jp-InputPrompt"], input, { text: prompt });
  const editor = new El("DIV", ["cm-content"], input, {editable: true});
  const out = new El("DIV", ["jp-OutputArea"], c);
  return { c, editor, out };
};
// c1 is the cell the person just ran and stayed on (active, running); c3 runs but is not active; c4 is
// active but finished (a background call's form); c5 shows an old mw.pending() list.
const [c0, c1, c2] = [cell(0), cell(1, ["jp-mod-active"], "[*]:"), cell(2)];
const c3 = cell(3, [], "[*]:");
const c4 = cell(4, ["jp-mod-active"], "[4]:");
const c5 = cell(5, ["jp-mod-active"], "[*]:");
const form = new El("DIV", ["mcp-widgets-form"], c1.out);
const moved_on = new El("DIV", ["mcp-widgets-form"], c3.out);
const background = new El("DIV", ["mcp-widgets-form"], c4.out);
const listed = new El("DIV", ["mcp-widgets-form"], new El("DIV", ["mcp-widgets-pending"], c5.out));
const otherInput = new El("INPUT", [], new El("DIV", ["mcp-widgets-form"], c1.out));
const lonely = new El("DIV", ["mcp-widgets-form"], new El("DIV", ["jp-OutputArea"], body));  // e.g. Voila
const button = new El("BUTTON", [], body);
const bodyInput = new El("INPUT", [], body);
globalThis.document = { body, documentElement: new El("HTML"), activeElement: null };
const { mayTakeFocus } = await import(process.argv[2]);
const cases = {
  nothing: [null, form], body: [body, form], notebook: [nb, form], cell_in_command_mode: [c0.c, form],
  button: [button, form], own_cell_editor: [c1.editor, form], empty_editor_below: [c2.editor, form],
  editor_above: [c0.editor, form], another_form_in_same_output: [otherInput, form],
  input_elsewhere: [bodyInput, form], voila_button: [button, lonely], voila_typing: [bodyInput, lonely],
  moved_on: [nb, moved_on], background: [nb, background], pending_list: [nb, listed],
};
const out = {};
for (const [name, [active, box]] of Object.entries(cases)) {
  document.activeElement = active; out[name] = mayTakeFocus(box);
}
console.log(JSON.stringify(out));
"""


def run_esm(tmp_path: Path, driver_source: str, esm: str = ESM) -> Any:
    """Run `esm` under `driver_source` (a Node script given the module's URL); what it printed, as JSON."""
    module = tmp_path / "keys.mjs"
    module.write_text(esm)
    driver = tmp_path / "driver.mjs"
    driver.write_text(driver_source)
    run = subprocess.run(
        ["node", str(driver), module.as_uri()], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(run.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the ESM")
def test_the_focus_rule_takes_nobodys_typing_away(tmp_path: Path) -> None:
    assert run_esm(tmp_path, FAKE_DOM) == {
        # nothing is being edited: take focus
        "nothing": True,
        "body": True,
        "notebook": True,
        "cell_in_command_mode": True,
        "button": True,
        "voila_button": True,
        # the person just ran the form's cell and stayed on it (Ctrl+Enter)
        "own_cell_editor": True,
        # someone is typing elsewhere: leave them alone
        "editor_above": False,
        "empty_editor_below": False,
        "another_form_in_same_output": False,
        "input_elsewhere": False,
        "voila_typing": False,
        # the person moved on (Shift+Enter), the cell finished (a background call), a mw.pending() list
        "moved_on": False,
        "background": False,
        "pending_list": False,
    }


def test_the_esm_checks_the_focus_rule_before_focusing() -> None:
    esm = ESM
    assert "if (mayTakeFocus(box)) takeFocus(first)" in esm
    assert "Focus rule:" in esm  # documented where it is implemented


def test_the_css_lets_wrapped_radio_titles_grow_and_titles_wrap_in_their_column() -> None:
    css = CSS
    radio_label = css.split(".widget-radio-box label")[1].split("}")[0]
    assert "height: auto" in radio_label and "white-space: normal" in radio_label
    assert "margin-bottom: 0 !important" in css  # the stock view's padding assumes one-line options
    title = css.split(".widget-inline-hbox > .widget-label")[1].split("}")[0]
    assert "white-space: normal" in title and "height: auto" in title
    assert f"margin-right: {TITLE_GAP}" in title


def test_the_esm_says_ready_and_answers_flush_probes() -> None:
    assert "send({ ready: true })" in ESM
    assert "send({ flushed: msg.flush })" in ESM and "_pending_msgs" in ESM
    assert 'form.on("msg:custom", onFlush)' in ESM and 'form.off("msg:custom", onFlush)' in ESM


def test_an_edit_and_then_a_press_arrive_in_order_on_the_forms_own_comm() -> None:
    """The page sends each edit and each button as messages on the form's one comm, which the kernel
    handles in order: a quick click after typing needs no flush probe (the composed form needed one)."""
    form = ElicitationForm("m", FORM, server="s")
    press(form, {"ready": True})
    press(form, {"edit": "first", "value": "Kyoto", "view": "v"})
    press(form, {"press": "accept"})
    assert form.result == mcp_types.ElicitResult(action="accept", content={"first": "Kyoto"})
    other = ElicitationForm("m", FORM, server="s")
    press(other, {"edit": "first", "value": "a", "view": "v"})
    press(other, {"edit": "middle", "value": "x", "view": "v"})  # the integer field refuses it
    press(other, {"key": "Enter", "in_last_field": True})
    assert other.state is FormState.PENDING  # Accept is disabled now: nothing sent
    press(other, {"edit": "middle", "value": "3", "view": "v"})
    press(other, {"key": "Enter", "in_last_field": True})
    assert other.result == mcp_types.ElicitResult(action="accept", content={"first": "a", "middle": 3})


# -- one model, many views: each view talks through the model of the form it sits in, run in Node -----------
VIEWS = """
globalThis.requestAnimationFrame = (fn) => setTimeout(fn, 0);
globalThis.document = { body: {}, documentElement: {}, activeElement: null };
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const makeModel = (children = []) => ({
  sent: [], handlers: [], children,
  get(name) { return name === "children" ? this.children : undefined; },
  send(msg) { this.sent.push(msg); },
  on(_name, fn) { this.handlers.push(fn); },
  off(_name, fn) { this.handlers = this.handlers.filter((h) => h !== fn); },
  emit(msg) { for (const fn of [...this.handlers]) fn(msg); },
  take() { const out = this.sent; this.sent = []; return out; },
});
const control = { _pending_msgs: 0 };
const models = { aaa: makeModel([control]), bbb: makeModel([]) };
const helper = makeModel();
helper.widget_manager = { get_model: (id) => Promise.resolve(models[id]) };
const box = (classes, withInput) => ({
  classList: classes, dataset: {}, listeners: [], byType: {},
  first: withInput ? { focused: false, focus() { this.focused = true; } } : null,
  addEventListener(type, fn, capture) { if (capture) { this.listeners.push(fn); this.byType[type] = fn; } },
  removeEventListener(_type, fn) { this.listeners = this.listeners.filter((h) => h !== fn); },
  contains: () => false,
  querySelector() { return this.first; },
  closest() { return null; },
});
const key = (name, inLast) => ({
  key: name, isComposing: false, preventDefault() {}, stopPropagation() {},
  target: { closest: (sel) => (inLast && sel === ".mcp-widgets-last" ? {} : null) },
});
const { default: widget } = await import(process.argv[2]);
const form = box(["mcp-widgets-form", "mcp-widgets-keys-aaa"], true);
const card = box(["mcp-widgets-url", "mcp-widgets-keys-bbb"], false);
const nameless = box(["something-else"], true);
const stops = [form, card, nameless].map((b) => widget.render({ model: helper, el: { parentElement: b } }));
await sleep(50);
const out = { ready: [models.aaa.take(), models.bbb.take()] };
models.aaa.emit({ flush: 1 });
models.bbb.emit({ flush: "2" });
models.bbb.emit({ flush: 3 });
await sleep(20);
out.flushed = [models.aaa.take(), models.bbb.take()];
control._pending_msgs = 1;  // an update of the form's control still waits for the kernel's idle
models.aaa.emit({ flush: 4 });
await sleep(50);
out.while_pending = models.aaa.take();
control._pending_msgs = 0;
await sleep(50);
out.after_idle = models.aaa.take();
// Focus the form took by itself: Escape and Enter send nothing (the person has not engaged it).
form.byType.keydown(key("Escape"));
form.byType.keydown(key("Enter", true));
out.unengaged = models.aaa.take();
// A click in the form and the card: now they are the person's.
form.byType.pointerdown({ type: "pointerdown" });
card.byType.pointerdown({ type: "pointerdown" });
form.byType.keydown(key("Escape"));
form.byType.keydown(key("Enter", true));
form.byType.keydown(key("Enter", false));
form.byType.keydown({ ...key("Enter", true), shiftKey: true });  // Shift+Enter: never an answer
card.byType.keydown(key("Escape"));
form.byType.input({ type: "input" });  // typed: Escape says so (the kernel may not have it yet)
form.byType.keydown(key("Escape"));
out.keys = [models.aaa.take(), models.bbb.take()];
out.helper_sent = helper.take();
out.listening = [form, card, nameless].map((b) => b.listeners.length);
out.focused = [form.first.focused, nameless.first.focused];
stops[0]();
models.aaa.emit({ flush: 5 });
await sleep(20);
const flag = form.dataset.mcpWidgetsKeys ?? null;
out.after_remove = { sent: models.aaa.take(), listeners: form.listeners.length, flag };
console.log(JSON.stringify(out));
process.exit(0);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the ESM")
def test_each_view_talks_through_its_own_form_and_replies_once_its_updates_are_in(tmp_path: Path) -> None:
    assert run_esm(tmp_path, VIEWS) == {
        # "ready" once each view has its form's model; a box without an id gets no listener
        "ready": [[{"ready": True}], [{"ready": True}]],
        "flushed": [[{"flushed": 1}], [{"flushed": 3}]],
        # no reply while a control's update waits for the kernel's idle; then one
        "while_pending": [],
        "after_idle": [{"flushed": 4}],
        "unengaged": [],
        "keys": [
            [
                {"key": "Escape"},
                {"key": "Enter", "in_last_field": True},
                {"key": "Escape", "typed": True, "edits": 1},
            ],
            [{"key": "Escape"}],
        ],
        "helper_sent": [],  # nothing goes through the shared model
        # keydown, click (a URL card's Open page), focusin/out, pointerdown, input, change
        "listening": [7, 7, 0],
        "focused": [True, True],
        "after_remove": {"sent": [], "listeners": 0, "flag": None},
    }


STYLE_VIEW = """
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const control = { _pending_msgs: 0 };
const form = { get: (name) => (name === "children" ? [control] : undefined) };
const style = {
  sent: [], handlers: [],
  get: (name) => (name === "form_id" ? "f1" : undefined),
  send(msg) { this.sent.push(msg); },
  on(_name, fn) { this.handlers.push(fn); },
  off(_name, fn) { this.handlers = this.handlers.filter((h) => h !== fn); },
  emit(msg) { for (const fn of [...this.handlers]) fn(msg); },
  take() { const out = this.sent; this.sent = []; return out; },
  widget_manager: { get_model: (id) => Promise.resolve(id === "f1" ? form : null) },
};
const { default: widget } = await import(process.argv[2]);
const stop = widget.render({ model: style });
await sleep(20);
const out = { ready: style.take() };
control._pending_msgs = 1;  // the last keystroke still waits for the kernel's idle
style.emit({ flush: 1 });
await sleep(50);
out.while_pending = style.take();
control._pending_msgs = 0;
await sleep(50);
out.after_idle = style.take();
stop();
style.emit({ flush: 2 });
await sleep(20);
out.after_stop = { sent: style.take(), handlers: style.handlers.length };
console.log(JSON.stringify(out));
process.exit(0);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the ESM")
def test_a_tool_forms_style_view_replies_once_the_forms_updates_are_in(tmp_path: Path) -> None:
    from mcp_widgets.widgets._tool_form import FormStyle

    esm = FormStyle.class_traits()["_esm"].default_value
    assert run_esm(tmp_path, STYLE_VIEW, esm) == {
        "ready": [{"ready": True}],
        "while_pending": [],
        "after_idle": [{"flushed": 1}],
        "after_stop": {"sent": [], "handlers": 0},
    }


def test_the_asset_files_name_the_classes_python_uses() -> None:
    from mcp_widgets.widgets import _kit
    from mcp_widgets.widgets._choice_fields import CHECKS_CLASS, CHOICES_CLASS, TITLE_CLASS
    from mcp_widgets.widgets._keys_assets import CSS, ESM, HISTORY_CSS, KEYS_CLASS, STYLE_ESM

    for name in (_kit.FORM_CLASS, _kit.WRAP_CLASS, _kit.ERROR_CLASS, _kit.INVALID_CLASS, CHECKS_CLASS):
        assert f".{name}" in CSS, name
    assert f".{CHOICES_CLASS}" in CSS and f".{TITLE_CLASS}" in CSS
    assert f"margin: 0 {_kit.TITLE_GAP} 0 0" in CSS and f"margin-right: {_kit.TITLE_GAP}" in CSS
    assert f'"{KEYS_CLASS}"' in ESM and f".slice({len(KEYS_CLASS)})" in ESM
    assert f'"{_kit.INVALID_CLASS}"' in ESM and f'"{_kit.INVALID_CLASS}"' in STYLE_ESM
    # Each group of options gets its own name (groups.js): a multi-select's checkbox column, by its class.
    assert f".{CHOICES_CLASS}" in ESM and f".{CHOICES_CLASS}" in STYLE_ESM
    assert f'closest(".{_kit.FORM_CLASS}")' in ESM
    assert ".mcp-widgets-history" in HISTORY_CSS


OPEN_VIEW = """
globalThis.requestAnimationFrame = (fn) => setTimeout(fn, 0);
globalThis.document = { body: {}, documentElement: {}, activeElement: null };
const opened = [];
globalThis.window = { open: (...args) => { opened.push(args); return null; } };
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const card = {
  sent: [], handlers: [],
  get() { return []; },
  send(msg) { this.sent.push(msg); },
  on(_name, fn) { this.handlers.push(fn); },
  off(_name, fn) { this.handlers = this.handlers.filter((h) => h !== fn); },
  emit(msg) { for (const fn of [...this.handlers]) fn(msg); },
  take() { const out = this.sent; this.sent = []; return out; },
};
const helper = { widget_manager: { get_model: () => Promise.resolve(card) }, send() {} };
const button = { disabled: false };
const box = {
  classList: ["mcp-widgets-url", "mcp-widgets-keys-ccc"], dataset: {}, listeners: {},
  addEventListener(type, fn, capture) { if (capture) this.listeners[type] = fn; },
  removeEventListener(type) { delete this.listeners[type]; },
  querySelector() { return null; },
  contains: (el) => el === button,
};
// A click on the card's Open page button (or elsewhere): whether it went on to the stock button.
const click = (onOpen) => {
  let through = true;
  box.listeners.click({
    target: { closest: (sel) => (onOpen && sel === "button.mcp-widgets-open" ? button : null) },
    preventDefault() {}, stopPropagation() { through = false; },
  });
  return through;
};
const { default: widget } = await import(process.argv[2]);
widget.render({ model: helper, el: { parentElement: box } });
await sleep(50);
const out = { ready: card.take() };
out.before_url = [click(true), opened.length];  // not told a URL: the stock click goes on, nothing opens
card.emit({ open_url: "https://auth.example.com/x?y=1" });
out.elsewhere = [click(false), opened.length];
out.marked = box.dataset.mcpWidgetsOpen ?? null;
out.armed = [click(true), opened.splice(0), card.take()];
card.emit({ open_url: "javascript:alert(1)" });  // never sent by the kernel; refused all the same
out.not_http = [click(true), opened.length];
card.emit({ open_url: "https://auth.example.com/x?y=1" });
button.disabled = true;
out.disabled = [click(true), opened.length];
button.disabled = false;
card.emit({ open_url: null });  // the round ended
out.ended = [click(true), opened.length, card.take(), box.dataset.mcpWidgetsOpen ?? null];
console.log(JSON.stringify(out));
process.exit(0);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the ESM")
def test_open_page_opens_only_the_url_the_kernel_sent_and_only_in_the_click(tmp_path: Path) -> None:
    assert run_esm(tmp_path, OPEN_VIEW) == {
        "ready": [{"ready": True}],
        "before_url": [True, 0],
        "elsewhere": [True, 0],
        "marked": "1",  # the card says a click opens the page (the browser tests wait for it)
        # opened inside the click, without opener or referrer; the kernel takes the message as the consent
        "armed": [
            False,
            [["https://auth.example.com/x?y=1", "_blank", "noopener,noreferrer"]],
            [{"opened": "https://auth.example.com/x?y=1"}],
        ],
        "not_http": [True, 0],
        "disabled": [True, 0],
        "ended": [True, 0, [], None],
    }


def test_the_keys_hint_says_what_the_keys_do_while_an_app_shows_the_question() -> None:
    """An app's keys stay inside its frame, and Accept is its own: the hint never promises Enter."""

    from mcp_widgets.widgets._form import KEYS_HINT, KEYS_HINT_APP

    form = ElicitationForm("m", FORM, server="s")
    assert form.hint == KEYS_HINT
    app = w.HTML("the app")
    form.embed(app)
    assert form.hint == KEYS_HINT_APP and form.app is app and form.embedded
    press(form, {"press": "plain"})  # the person's switch: the fields and Enter are back
    assert form.hint == KEYS_HINT and form.app is None
    other = ElicitationForm("m", FORM, server="s")
    other.embed(w.HTML("the app"))
    other.use_plain_form("The plain form instead: the app did not start.")  # a fallback says why instead
    assert other.hint.startswith("The plain form instead") and other.hint_warn
    for widget in (form, other, app):
        widget.close()


def test_escape_on_a_form_with_typed_input_asks_for_a_second_press() -> None:
    from mcp_widgets.widgets._form import ESCAPE_AGAIN, KEYS_HINT

    form = ElicitationForm("m", FORM, server="s")
    assert form.hint == KEYS_HINT
    form.fill(first="a")  # what the person typed
    press(form, {"key": "Escape"})
    assert form.state is FormState.PENDING and form.hint == ESCAPE_AGAIN and form.hint_warn
    form.fill(last="z")  # typing on: the next Escape asks again
    assert form.hint == KEYS_HINT
    press(form, {"key": "Escape"})
    assert form.state is FormState.PENDING and form.hint == ESCAPE_AGAIN
    press(form, {"key": "Escape"})
    assert form.outcome == Outcome(Action.CANCEL, Reason.PERSON)
    # A keystroke the kernel has not seen yet: the browser says the person typed.
    other = ElicitationForm("m", FORM, server="s")
    press(other, {"key": "Escape", "typed": True})
    assert other.state is FormState.PENDING
    press(other, {"key": "Escape"})
    assert other.state is FormState.CANCELLED


def test_the_browsers_count_of_edits_decides_the_second_escape() -> None:
    """What was typed before the first Escape may reach the kernel after it: that late change does not
    re-arm; an edit the browser counted after the first Escape does."""
    from mcp_widgets.widgets._form import ESCAPE_AGAIN

    form = ElicitationForm("m", FORM, server="s")
    press(form, {"key": "Escape", "typed": True, "edits": 3})
    assert form.state is FormState.PENDING and form.hint == ESCAPE_AGAIN
    form.fill(first="Ada")  # the value typed before that Escape, arriving late
    assert form.hint == ESCAPE_AGAIN
    press(form, {"key": "Escape", "typed": True, "edits": 5})  # typed on in between: asks again
    assert form.state is FormState.PENDING and form.hint == ESCAPE_AGAIN
    press(form, {"key": "Escape", "typed": True, "edits": 5})
    assert form.outcome == Outcome(Action.CANCEL, Reason.PERSON)
    # A count that is not a number is ignored (the kernel's own rule then).
    other = ElicitationForm("m", FORM, server="s")
    press(other, {"key": "Escape", "typed": True, "edits": "x"})
    press(other, {"key": "Escape", "typed": True, "edits": True})
    assert other.state is FormState.CANCELLED


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_anywidget_of_ours_declares_its_name_so_no_instance_makes_a_class() -> None:
    # anywidget adds `_anywidget_id` to an instance whose class lacks it, and traitlets then makes a class
    # for that one instance: about 4 ms of a question in a kernel, for the call's line.
    import mcp_widgets.widgets  # noqa: F401  (every class of ours defined)
    from mcp_widgets.widgets import CallLine
    from mcp_widgets.widgets._keys import DeclaredAnyWidget

    classes = sorted(
        {c for c in _subclasses(DeclaredAnyWidget) if c.__module__.startswith("mcp_widgets")}, key=str
    )
    assert CallLine in classes and len(classes) > 10
    for cls in classes:
        trait = cls.class_traits().get("_anywidget_id")
        assert trait is not None and trait.name == "_anywidget_id" and trait.metadata.get("sync"), cls
    line = CallLine(status="x")
    assert type(line) is CallLine and line.get_state()["_anywidget_id"].endswith("CallLine")
    line.close()
