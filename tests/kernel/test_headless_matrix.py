"""Every calling style x every frontend situation, in real kernels: one ipykernel release per waiting
mechanism (7.4 and newer; 6.31, which stands for the pumped releases up to 7.3) and Colab's runtime.

The test acts as the frontend, or as no frontend at all: nobody renders the form; it renders at once and is
answered; it renders late (its first view report comes 3 s after the form, past the "is anyone looking"
grace period), in a kernel no page has shown a widget of ours in (a headless run: declined) and in one where
a page has (a slow page: answered); its view goes away and a new one comes back (a saved notebook reopened);
it renders and is left waiting. Each case has one defined end state, and after each the kernel must take an
interrupt within 1 s (where a cell still waits) and then run `1 + 1` within 2 s.

One kernel per release serves every case (a case that breaks it restarts it), so the matrix costs a few
seconds a case, most of them the grace period the "nobody" and "late" cases must wait out.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from .conftest import KernelEnv
from .harness import NO_PAGE, CellResult, KernelFrontend, WidgetModel

pytestmark = [pytest.mark.kernel, pytest.mark.colab, pytest.mark.one_per_mechanism]

FORM_ID = "mcp_widgets.ElicitationForm"
TOOL_FORM_CLASS = "mcp-widgets-tool-form"
VIEW = "application/vnd.jupyter.widget-view+json"
HEADLESS_NOTE = "no frontend showed the form"
LATE_VIEW_AT = 3.0  # seconds after the form appeared (the grace period is 1.5 s)
NOBODY_WITHIN = 3.0  # a form nobody renders is declined this soon after its call started
# Whether a page has rendered a widget of ours in this kernel (`kernel.page_seen`): the cases share a kernel,
# so each says which it is. A headless run is a kernel where no page ever did.
A_PAGE = NO_PAGE.replace("False", "True")

SETUP = """
import ipywidgets as W
from IPython.display import display
import mcp_widgets as mw
from mcp_widgets.core.requests import pending_requests
from tests.servers.demo import build_server, parse
srv = mw.connect_sync(build_server())
out = W.Output()
calls = []
start = W.Button(description='start')
start.on_click(lambda _: calls.append(srv.call_tool_background('ask_name', output=out)))
display(start, out)
tool_form = srv.form('ask_name')
display(tool_form)
print("connected", mw.__version__)
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def ref_id(ref: str) -> str:
    return ref.replace("IPY_MODEL_", "")


# --------------------------------------------------------------------------- one kernel per release


@dataclass
class Session:
    """A kernel connected to the demo server, with the widgets the callback styles click."""

    env: KernelEnv
    fe: KernelFrontend = field(init=False)
    seen_forms: set[str] = field(default_factory=set)
    broken: bool = False

    def start(self) -> Session:
        self.fe = KernelFrontend(self.env.python).start()
        assert "connected" in ok(self.fe.run(SETUP, timeout=180)).stdout
        self.seen_forms = set()
        self.broken = False
        return self

    def restart(self) -> None:
        self.fe.stop()
        self.start()

    def button(self, label: str, *, inside: str | None = None) -> WidgetModel:
        def match(w: WidgetModel) -> bool:
            if w.state.get("description") != label:
                return False
            return inside is None or f"IPY_MODEL_{w.comm_id}" in self._buttons_of(inside)

        return self.fe.wait_widget("ButtonModel", where=match, timeout=30)

    def _buttons_of(self, classes: str) -> set[str]:
        refs: set[str] = set()
        for w in list(self.fe.widgets.values()):
            if classes in w.state.get("_dom_classes", ()):
                for ref in w.state.get("children", ()):
                    kid = self.fe.widgets.get(ref_id(ref))
                    if kid is not None and kid.model_name == "HBoxModel":
                        refs.update(kid.state.get("children", ()))
        return refs


@pytest.fixture(scope="module")
def sessions() -> Iterator[dict[str, Session]]:
    made: dict[str, Session] = {}
    yield made
    for session in made.values():
        session.fe.stop()


@pytest.fixture
def session(kernel_env: KernelEnv, sessions: dict[str, Session]) -> Iterator[Session]:
    current = sessions.get(kernel_env.label)
    if current is None:
        current = sessions[kernel_env.label] = Session(kernel_env).start()
    elif current.broken:
        current.restart()
    current.broken = True  # until the case has checked that the kernel is usable again
    yield current


# --------------------------------------------------------------------------- a form as the frontend sees it


@dataclass
class Form:
    fe: KernelFrontend
    model: WidgetModel
    appeared: float  # time.monotonic() when the test first saw it

    def kids(self) -> list[WidgetModel]:
        refs = self.model.state.get("children", [])
        return [self.fe.widgets[ref_id(r)] for r in refs if ref_id(r) in self.fe.widgets]

    def pending(self) -> bool:
        """Still asking (an answered form keeps its closing line; a closed one is gone)."""
        return self.model.comm_id in self.fe.widgets and not self.model.state.get("closing_line")

    def views(self, count: int) -> Form:
        """Report `count` rendered views, as the widget manager does (0: the last view went away)."""
        self.fe.update(self.model, {"_view_count": count})
        return self

    def answer(self, name: str) -> None:
        """Type `name` and press Accept, as the form's page does (messages on its one comm, in order)."""
        self.fe.send_custom(self.model, {"edit": "name", "value": name, "view": "matrix"})
        self.fe.wait_until(
            lambda: self.model.state.get("accept_ok") is True, timeout=30, what="Accept enabled"
        )
        self.press("accept")

    def press(self, button: str) -> None:
        """A button of the form pressed on the page ("accept", "decline", "cancel")."""
        self.fe.send_custom(self.model, {"press": button})


def next_form(s: Session, timeout: float = 60) -> Form:
    fe = s.fe

    def asking(w: WidgetModel) -> bool:
        state = w.state
        return (
            state.get("_anywidget_id") == FORM_ID
            and not state.get("closing_line")
            and w.comm_id not in s.seen_forms
        )

    model = fe.wait_widget("AnyModel", where=asking, timeout=timeout)
    s.seen_forms.add(model.comm_id)
    return Form(fe, model, time.monotonic())


def lines_since(fe: KernelFrontend, start: int) -> list[str]:
    """Every line of text shown since iopub message `start`: displays (a call ends as text), Labels, a
    call's line's notes, and the outputs of Output widgets (the callback styles' closing lines)."""
    lines: list[str] = []
    for msg in fe.iopub_log[start:]:
        kind, content = msg["msg_type"], msg["content"]
        if kind in ("display_data", "update_display_data", "execute_result"):
            data = content.get("data", {})
            if VIEW not in data:
                lines += str(data.get("text/plain", "")).splitlines()
        elif kind == "stream":
            lines += content["text"].splitlines()
        elif kind in ("comm_open", "comm_msg"):
            state = content.get("data", {}).get("state", {})
            value = state.get("value")
            if isinstance(value, str) and (kind == "comm_msg" or state.get("_model_name") == "LabelModel"):
                lines.append(value)
            notes = state.get("notes")  # a call's line's notes (a refused request, a hint)
            if isinstance(notes, list):
                lines += [str(note) for note in notes]
            closing = state.get("closing_line")  # a form's one line left
            if isinstance(closing, str) and closing:
                lines.append(closing)
            for out in state.get("outputs", ()) or ():
                lines += str(out.get("data", {}).get("text/plain", out.get("text", ""))).splitlines()
    return lines


def wait_line(fe: KernelFrontend, start: int, words: str, timeout: float) -> str:
    found: list[str] = []

    def seen() -> bool:
        found[:] = [line for line in lines_since(fe, start) if words in line][:1]
        return bool(found)

    fe.wait_until(seen, timeout=timeout, what=f"a line with {words!r}")
    return found[0]


# --------------------------------------------------------------------------- calling styles


@dataclass
class Style:
    """How a call is made, and how the test reads how it ended."""

    name: str
    setup: str | None  # a cell run first that returns at once (background styles)
    waiting: str | None  # the cell that waits for the outcome and prints it; None: nothing waits
    click: str | None = None  # the button that starts the call (widget callback, tool form)

    def begin(self, s: Session) -> str | None:
        """Start the call; return the msg_id of the cell that waits for it, if any."""
        if self.setup is not None:
            ok(s.fe.run(self.setup, timeout=30))
        if self.click == "start":
            s.fe.click(s.button("start"))
        elif self.click == "run":
            s.fe.click(s.button("Run", inside=TOOL_FORM_CLASS))
        return s.fe.execute(self.waiting) if self.waiting is not None else None

    def outcome(self, s: Session, msg_id: str | None, timeout: float) -> tuple[str, float]:
        """The printed outcome, and when it was known (time.monotonic())."""
        if msg_id is not None:
            cell = ok(s.fe.wait_cell(msg_id, timeout=timeout))
            assert cell.reply_time is not None
            return cell.stdout.strip(), cell.reply_time
        done = "calls[-1].done()" if self.click == "start" else "tool_form.call.done()"
        value = "calls[-1].result()" if self.click == "start" else "tool_form.call.result()"
        deadline = time.monotonic() + timeout
        while True:  # poll from cells that return at once: nothing here may wait for the call
            cell = ok(s.fe.run(f"print({done})", timeout=30))
            if cell.stdout.strip() == "True":
                break
            assert time.monotonic() < deadline, f"the {self.name} call did not end within {timeout} s"
            s.fe.settle(0.1)
        known = time.monotonic()
        return ok(s.fe.run(f"print(parse({value}))", timeout=30)).stdout.strip(), known


BACKGROUND = "call = srv.call_tool_background('ask_name')"
STYLES = {
    style.name: style
    for style in [
        Style("await", None, "print(parse(await srv.call_tool('ask_name')))"),
        Style("sync", None, "print(parse(srv.call_tool_sync('ask_name')))"),
        Style("background-await", BACKGROUND, "print(parse(await call))"),
        Style("background-result", BACKGROUND, "print(parse(call.result()))"),
        Style("prompt-sync", None, "print(srv.get_prompt_sync('greeting').messages[0].content.text)"),
        Style("widget-callback", None, None, click="start"),
        Style("tool-form-run", None, None, click="run"),
    ]
}


def declined(style: Style) -> str:
    return "Greet nobody" if style.name == "prompt-sync" else "{'action': 'decline'}"


def cancelled(style: Style) -> str:
    return "Greet nobody" if style.name == "prompt-sync" else "{'action': 'cancel'}"


def answered(style: Style, name: str) -> str:
    if style.name == "prompt-sync":
        return f"Greet {name}"
    return str({"action": "accept", "content": {"name": name}})


# --------------------------------------------------------------------------- after every case


def still_usable(s: Session, msg_id: str | None) -> None:
    """An interrupt of a still-waiting cell lands within 1 s; then `1 + 1` runs within 2 s."""
    fe = s.fe
    if msg_id is not None and not fe.cells[msg_id].done:
        sent = fe.interrupt()
        cell = fe.wait_cell(msg_id, timeout=10)
        assert cell.status == "error" and cell.ename in ("KeyboardInterrupt", "CancelledError"), cell
        assert cell.reply_time is not None and cell.reply_time - sent < 1.0, cell.reply_time - sent
    asked = time.monotonic()
    result = ok(fe.run("1 + 1", timeout=10))
    assert result.results and result.results[-1].get("text/plain") == "2"
    assert result.reply_time is not None and result.reply_time - asked < 2.0, result.reply_time - asked
    assert ok(fe.run("print(pending_requests())")).stdout == "[]\n"
    s.broken = False


# --------------------------------------------------------------------------- the cases


@pytest.mark.parametrize("style_name", list(STYLES))
def test_nobody_renders(session: Session, style_name: str) -> None:
    """Declined as headless within 3 s of the call's start, with the note where the call shows."""
    style, fe = STYLES[style_name], session.fe
    ok(fe.run(NO_PAGE))
    mark = len(fe.iopub_log)
    started = time.monotonic()
    msg_id = style.begin(session)
    text, known = style.outcome(session, msg_id, timeout=30)
    assert text == declined(style)
    assert known - started < NOBODY_WITHIN, known - started
    line = wait_line(fe, mark, HEADLESS_NOTE, timeout=10)
    assert "declined" in line and "headless" in line, line
    still_usable(session, msg_id)


@pytest.mark.parametrize("style_name", list(STYLES))
def test_renders_at_once(session: Session, style_name: str) -> None:
    style = STYLES[style_name]
    ok(session.fe.run(NO_PAGE))
    msg_id = style.begin(session)
    next_form(session).views(1).answer("Ada")
    text, _ = style.outcome(session, msg_id, timeout=60)
    assert text == answered(style, "Ada")
    # The view report told the kernel a page is there: a later form gets the slow page's grace.
    assert ok(session.fe.run("print(_views.page_seen())")).stdout == "True\n"
    still_usable(session, msg_id)


@pytest.mark.parametrize("style_name", list(STYLES))
def test_renders_late(session: Session, style_name: str) -> None:
    """In a kernel no page has shown a widget of ours in, the first view report comes after the grace
    period: the form was declined, and shows so."""
    style, fe = STYLES[style_name], session.fe
    ok(fe.run(NO_PAGE))
    mark = len(fe.iopub_log)
    msg_id = style.begin(session)
    form = next_form(session)
    fe.wait_until(
        lambda: time.monotonic() - form.appeared >= LATE_VIEW_AT, timeout=LATE_VIEW_AT + 1, what="3 s"
    )
    form.views(1)  # to a form that already ended: its model may be closed by now
    text, _ = style.outcome(session, msg_id, timeout=30)
    assert text == declined(style)
    assert not form.pending()
    line = wait_line(fe, mark, HEADLESS_NOTE, timeout=10)
    assert "declined" in line, line
    still_usable(session, msg_id)


@pytest.mark.parametrize("style_name", list(STYLES))
def test_renders_late_on_a_page(session: Session, style_name: str) -> None:
    """Where a page has rendered a widget of ours before, a form it renders 3 s late is a slow page, not a
    headless run: it still asks, and is answered."""
    answered_late(session, STYLES[style_name], A_PAGE, made=False, name="Cy")


def answered_late(session: Session, style: Style, setup: str, *, made: bool, name: str) -> None:
    """After `setup`, the form's view is reported 3 s late (`made`: the page said at once that it made
    the model, as `assets/question.js` does): it must still ask, and is answered with `name`."""
    fe = session.fe
    ok(fe.run(setup))
    msg_id = style.begin(session)
    form = next_form(session)
    if made:
        fe.send_custom(form.model, {"here": True})
    fe.wait_until(
        lambda: time.monotonic() - form.appeared >= LATE_VIEW_AT, timeout=LATE_VIEW_AT + 1, what="3 s"
    )
    assert form.pending(), "a form on a slow page was declined as unseen"
    form.views(1).answer(name)
    text, _ = style.outcome(session, msg_id, timeout=60)
    assert text == answered(style, name)
    still_usable(session, msg_id)


@pytest.mark.parametrize("style_name", ["await", "sync", "background-result", "widget-callback"])
def test_made_by_a_page_and_rendered_late(session: Session, style_name: str) -> None:
    """In a kernel no page has shown a widget of ours in, a page that made the form's model (its module says
    `here` before any view: a first question on a loaded machine) is a slow page: the view 3 s late still
    asks, and is answered. The waiting styles differ in how the message reaches the kernel."""
    answered_late(session, STYLES[style_name], NO_PAGE, made=True, name="Di")


@pytest.mark.parametrize("style_name", list(STYLES))
def test_view_gone_and_back(session: Session, style_name: str) -> None:
    """A form once rendered is never declined as unseen: its view closes, a new one opens, it is answered."""
    style, fe = STYLES[style_name], session.fe
    msg_id = style.begin(session)
    form = next_form(session).views(1)
    fe.settle(0.3)
    form.views(0)  # the notebook was closed
    fe.wait_until(lambda: time.monotonic() - form.appeared >= 2.5, timeout=5, what="the grace period")
    assert form.pending(), "a form someone had rendered was declined as unseen"
    assert msg_id is None or not fe.cells[msg_id].done
    form.views(1)  # reopened
    form.answer("Bo")
    text, _ = style.outcome(session, msg_id, timeout=60)
    assert text == answered(style, "Bo")
    still_usable(session, msg_id)


@pytest.mark.parametrize("style_name", list(STYLES))
def test_rendered_and_left_waiting(session: Session, style_name: str) -> None:
    """Nobody answers: an interrupt of the waiting cell lands at once and ends the form as interrupted.

    With no waiting cell (widget callback, tool form) the kernel is idle meanwhile; the form is then
    cancelled by the person.
    """
    style, fe = STYLES[style_name], session.fe
    mark = len(fe.iopub_log)
    msg_id = style.begin(session)
    form = next_form(session).views(1)
    fe.settle(0.3)
    assert form.pending()
    if msg_id is None:
        assert ok(fe.run("1 + 1", timeout=10)).results[-1].get("text/plain") == "2"
        form.press("cancel")
        text, _ = style.outcome(session, None, timeout=30)
        assert text == cancelled(style)
        still_usable(session, None)
        return
    still_usable(session, msg_id)  # interrupts the waiting cell
    line = wait_line(fe, mark, "interrupted", timeout=10)
    assert "cancelled" in line, line
