"""The client inside real kernels: a person answers forms while the calling cell awaits, blocks, or returns.

The test acts as the browser: it reports the form as rendered (`_view_count`, as the widget manager does),
types into fields, and clicks buttons, all while the cell is still running; it interrupts the kernel and
queues cells behind a waiting one. One ipykernel release per waiting mechanism (`one_per_mechanism`), and
Colab's runtime for the waiting tests marked `colab`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from .harness import NO_PAGE, CellResult, KernelFrontend, WidgetModel

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

RESET = """
from mcp_widgets.client.server import Server as _Server
from mcp_widgets.core.requests import pending_requests as _pending
for _value in list(globals().values()):
    if isinstance(_value, _Server):
        _value.close()
assert _pending() == [], _pending()
del _Server, _pending, _value
"""
"""After a `reuse_kernel` case: close the servers it connected; nothing may be left pending."""

FORM_ID = "mcp_widgets.ElicitationForm"
URL_CARD_ID = "mcp_widgets.UrlCard"
SIGNIN_CARD_ID = "mcp_widgets.SignInCard"
"""A question card's `_anywidget_id`: the form is one model (an anywidget), its card in its state."""


def is_form(w: WidgetModel | None) -> bool:
    """Whether `w` is a question card (an ElicitationForm), pending or not."""
    return w is not None and w.model_name == "AnyModel" and w.state.get("_anywidget_id") == FORM_ID


def is_call_line(w: WidgetModel | None) -> bool:
    """Whether `w` is a call's line (`CallLine`): the call's whole display, its notes and placed widgets."""
    return (
        w is not None
        and w.model_name == "AnyModel"
        and str(w.state.get("_anywidget_id")).endswith(".CallLine")
    )


def is_url_card(w: WidgetModel | None) -> bool:
    """Whether `w` is a URL card (one model, drawn by the question card's renderer), pending or not."""
    return w is not None and w.model_name == "AnyModel" and w.state.get("_anywidget_id") == URL_CARD_ID


def is_link_card(w: WidgetModel | None) -> bool:
    """Whether `w` is a URL card or a sign-in card (one model each, the renderer's link block)."""
    return (
        w is not None
        and w.model_name == "AnyModel"
        and w.state.get("_anywidget_id")
        in (
            URL_CARD_ID,
            SIGNIN_CARD_ID,
        )
    )


def setup_code(target: str = "build_server()", mode: str = "auto", extra: str = "") -> str:
    return f"""
import asyncio, os
import ipywidgets as W
from IPython.display import display
import mcp_widgets.client as mwc
from mcp_widgets import handlers
from mcp_widgets.core.exceptions import BlockingCallError
from mcp_widgets.core.requests import pending_requests
from tests.servers.demo import build_server, parse
from tests.servers.launch import stdio_command
mwc.questions.answering.LOOK_GRACE = 30  # the test frontend may be slow to report a view on a loaded machine
srv = mwc.connect_sync({target}, mode={mode!r}{extra})
print("connected", srv.protocol_version)
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def connect(fe: KernelFrontend, mode: str = "auto", target: str = "build_server()", extra: str = "") -> None:
    cell = ok(fe.run(setup_code(target, mode, extra), timeout=180))
    assert "connected" in cell.stdout


def model_id(ref: str) -> str:
    return ref.replace("IPY_MODEL_", "")


@dataclass
class Form:
    """A pending card as the frontend sees it: a form, a URL card or a sign-in card (one model each: its
    card, its messages)."""

    fe: KernelFrontend
    model: WidgetModel

    def child(self, ref: str) -> WidgetModel:
        return self.fe.widgets[model_id(ref)]

    def kids(self) -> list[WidgetModel]:
        return [self.child(r) for r in self.model.state.get("children", []) if model_id(r) in self.fe.widgets]

    def lines(self) -> list[str]:
        """The text the card shows: a form's header and message (or its closing line), a box's Labels."""
        if is_form(self.model):
            state = self.model.state
            card = state.get("card") or {}
            closing = state.get("closing_line")
            return [closing] if closing else [card.get("header", ""), card.get("message", "")]
        if is_link_card(self.model):
            state = self.model.state
            card = state.get("card") or {}
            if state.get("closing_line"):
                return [state["closing_line"]]
            shown = ["header", "message", "host", "detail", "address"]
            lines = [card.get(k, "") for k in shown] + list(card.get("warnings", [])) + [state.get("status")]
            return [str(line) for line in lines if line]
        return [str(k.state.get("value")) for k in self.kids() if k.model_name == "LabelModel"]

    def seen(self) -> Form:
        """Report one rendered view, as JupyterLab's widget manager does."""
        self.fe.update(self.model, {"_view_count": 1})
        return self

    def type(self, title: str, value: object) -> Form:
        """Type into the field titled `title`: a form's page sends an edit message (fields.js), a stock
        text box an update."""
        if is_form(self.model):
            row = next(r for r in self.model.state["card"]["rows"] if r.get("title") == title)
            self.fe.send_custom(self.model, {"edit": row["name"], "value": value, "view": "test"})
            return self
        field = next(k for k in self.kids() if k.state.get("description") == title)
        self.fe.update(field, {"value": value})
        return self

    def click(self, label: str) -> None:
        """Press the button `label`: a form's page sends {press}, a stock button its click."""
        if is_form(self.model):
            self.fe.send_custom(self.model, {"press": label.lower()})
            return
        if is_link_card(self.model):  # its page sends the press of the button with that label
            found = [b for b in self.model.state.get("buttons", []) if b.get("label") == label]
            if not found:
                raise AssertionError(f"no {label} button")
            self.fe.send_custom(self.model, {"press": found[0]["press"]})
            return
        hbox = next(k for k in self.kids() if k.model_name == "HBoxModel")
        for ref in hbox.state["children"]:
            button = self.child(ref)
            if button.state.get("description") == label:
                self.fe.click(button)
                return
        raise AssertionError(f"no {label} button")


def pending_form(fe: KernelFrontend, *, exclude: set[str] | None = None, timeout: float = 90) -> Form:
    """Wait for a form that is still pending (an answered form keeps only its closing line)."""
    skip = exclude if exclude is not None else set()

    def pending(w: WidgetModel) -> bool:
        return is_form(w) and not w.state.get("closing_line") and w.comm_id not in skip

    model = fe.wait_widget("AnyModel", where=pending, timeout=timeout)
    skip.add(model.comm_id)
    return Form(fe, model)


VIEW = "application/vnd.jupyter.widget-view+json"


def shown_lines(fe: KernelFrontend) -> Iterator[str]:
    """Every line the kernel shows as text: live Labels, a call's line's notes, and displays (a call ends as
    text)."""
    for w in list(fe.widgets.values()):
        if w.model_name == "LabelModel":
            yield str(w.state.get("value", ""))
        elif is_call_line(w):
            yield from (str(note) for note in w.state.get("notes", ()))
        elif (is_form(w) or is_link_card(w)) and w.state.get("closing_line"):
            yield str(w.state["closing_line"])
    for msg in list(fe.iopub_log):
        data = msg["content"].get("data", {}) if isinstance(msg.get("content"), dict) else {}
        if msg["msg_type"] in ("display_data", "update_display_data", "execute_result") and VIEW not in data:
            yield from str(data.get("text/plain", "")).splitlines()


def final_line(fe: KernelFrontend, words: str, timeout: float = 60) -> str:
    """The one line a resolved form leaves behind, containing `words` (a Label, or closing text)."""
    found: list[str] = []

    def seen() -> bool:
        found[:] = [line for line in shown_lines(fe) if words in line][:1]
        return bool(found)

    fe.wait_until(seen, timeout=timeout, what=f"a line with {words!r}")
    return found[0]


def assert_shown_in(cell: CellResult, form: Form) -> None:
    """The form is (or soon will be) shown in `cell`'s output (the container's update may still be coming)."""
    fe = form.fe
    fe.wait_until(
        lambda: shown_in(cell, form.model.comm_id, fe), timeout=30, what="the form in the calling cell"
    )


def cell_bundles(cell: CellResult, fe: KernelFrontend) -> list[dict[str, Any]]:
    """What `cell` displayed, and every later update of its displays (by display id, from any cell)."""
    ids = {
        m["content"].get("transient", {}).get("display_id")
        for m in list(fe.iopub_log)
        if m["msg_type"] == "display_data" and m["parent_header"].get("msg_id") == cell.msg_id
    }
    ids.discard(None)
    updates = [
        m["content"].get("data", {})
        for m in list(fe.iopub_log)
        if m["msg_type"] == "update_display_data"
        and m["content"].get("transient", {}).get("display_id") in ids
    ]
    return [*cell.results, *updates]


def shown_in(cell: CellResult, widget_id: str, fe: KernelFrontend) -> bool:
    """True when `widget_id` is displayed in `cell`'s output, directly or inside a displayed container."""
    for data in cell_bundles(cell, fe):
        view = data.get("application/vnd.jupyter.widget-view+json")
        if not view:
            continue
        shown = view["model_id"]
        if shown == widget_id or f"IPY_MODEL_{widget_id}" in ever_children(fe, shown):
            return True
    return False


def ever_children(fe: KernelFrontend, comm_id: str) -> set[str]:
    """Every child a container model ever had, or every widget a call's line ever drew (it may be closed by
    now: a call's line is, once the call ended)."""
    kids: set[str] = set()
    for msg in list(fe.iopub_log):
        content = msg["content"]
        if content.get("comm_id") != comm_id:
            continue
        state = content.get("data", {}).get("state", {})
        kids.update(state.get("children", ()))
        kids.update(state.get("questions", ()))
    return kids


# --------------------------------------------------------------------------- the three calling styles

CALLS = {
    "await": "r = await srv.call_tool('ask_name')\nprint(parse(r))",
    "sync": "r = srv.call_tool_sync('ask_name')\nprint(parse(r))",
}


@pytest.mark.reuse_kernel
@pytest.mark.colab
@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("style", list(CALLS))
def test_person_answers_while_the_cell_waits(frontend: KernelFrontend, style: str, mode: str) -> None:
    connect(frontend, mode)
    msg_id = frontend.execute(CALLS[style])
    form = pending_form(frontend).seen()
    form.type("Name *", "Ada").click("Accept")
    cell = ok(frontend.wait_cell(msg_id, timeout=60))
    assert cell.stdout == "{'action': 'accept', 'content': {'name': 'Ada'}}\n"
    # The form rendered in the calling cell, and what was typed is gone from it.
    assert_shown_in(cell, form)
    final_line(frontend, "accepted by the person")
    assert all(w.state.get("value") != "Ada" for w in frontend.widgets.values())


@pytest.mark.reuse_kernel
@pytest.mark.colab
def test_background_call_renders_in_its_cell(frontend: KernelFrontend) -> None:
    connect(frontend)
    calling = ok(frontend.run("call = srv.call_tool_background('ask_name')\ncall"))
    form = pending_form(frontend).seen()
    assert_shown_in(calling, form)
    # Another cell runs while the question waits; then the person answers.
    assert ok(frontend.run("print(call.state)")).stdout == "waiting for an answer\n"
    form.type("Name *", "Bea").click("Decline")
    cell = ok(frontend.run("print(parse(call.result()), call.state)"))
    assert cell.stdout == "{'action': 'decline'} done\n"
    # The status line (shown in the calling cell, and by the handle) ends as text; the result is under it.
    final_line(frontend, "tool 'ask_name' on 'demo': done")
    assert "tool 'ask_name' on 'demo': done" in set(shown_lines(frontend))  # the line alone, no JSON in it
    assert '{"action": "decline"}' in set(shown_lines(frontend))


def cell_shows(fe: KernelFrontend, cell: CellResult) -> list[str]:
    """The text of each output of `cell` as it reads now (a display at its latest update)."""
    last: dict[str, str] = {}
    for m in list(fe.iopub_log):
        content, kind = m["content"], m["msg_type"]
        ident = content.get("transient", {}).get("display_id") or m["header"]["msg_id"]
        text = str(content.get("data", {}).get("text/plain", ""))
        mine = kind in ("display_data", "execute_result") and m["parent_header"].get("msg_id") == cell.msg_id
        if mine or (kind == "update_display_data" and ident in last):
            last[ident] = text
    return list(last.values())


@pytest.mark.reuse_kernel
def test_a_call_asking_shows_one_line_that_draws_its_question(frontend: KernelFrontend) -> None:
    """A call's display is one model, its line (issue 49): the cell shows the line, the question is a
    reference in the line's state, and no box or Label is opened for the call; its closing text says how
    the question ended."""
    connect(frontend)
    start = len(frontend.iopub_log)
    calling = ok(frontend.run("call = srv.call_tool_background('ask_name')"))
    form = pending_form(frontend)
    assert_shown_in(calling, form)
    ref = f"IPY_MODEL_{form.model.comm_id}"
    lines = [
        w for w in list(frontend.widgets.values()) if is_call_line(w) and ref in w.state.get("questions", ())
    ]
    assert len(lines) == 1
    shown = [data[VIEW]["model_id"] for data in cell_bundles(calling, frontend) if VIEW in data]
    assert shown == [lines[0].comm_id]  # the line itself, no container around it
    opened = {
        m["content"]["data"]["state"].get("_model_name")
        for m in list(frontend.iopub_log)[start:]
        if m["msg_type"] == "comm_open"
    }
    assert not {"VBoxModel", "LabelModel"} & opened, opened
    form.seen().click("Decline")
    status = "tool 'ask_name' on 'demo': done"
    frontend.wait_until(
        lambda: any(status in text for text in cell_shows(frontend, calling)), timeout=30, what="the end"
    )
    assert "Request from demo: declined by the person" in cell_shows(frontend, calling)[0]
    frontend.wait_until(lambda: lines[0].comm_id not in frontend.widgets, timeout=30, what="the line closed")


@pytest.mark.reuse_kernel
@pytest.mark.parametrize(
    "source", ["srv.call_tool_background('ask_name')", "call = srv.call_tool_background('ask_name')\ncall"]
)
def test_a_background_call_shown_where_it_started_reads_once_and_ends_true(
    frontend: KernelFrontend, source: str
) -> None:
    """The cell that starts a background call and shows its handle: the status line once (the handle adds
    no second copy of the call's own line), and once the call ended nothing in the cell says "running"."""
    connect(frontend)
    calling = ok(frontend.run(source))
    status = "tool 'ask_name' on 'demo': "
    # one output: the call's display, by now maybe waiting for the answer or showing its form
    (first,) = cell_shows(frontend, calling)
    assert first.startswith((status + "running", status + "waiting for an answer")), first
    pending_form(frontend).seen().click("Decline")
    frontend.wait_until(
        lambda: any(status + "done" in text for text in cell_shows(frontend, calling)),
        timeout=30,
        what="the call's display to end",
    )
    (shown,) = cell_shows(frontend, calling)
    lines = ["Request from demo: declined by the person", status + "done", '{"action": "decline"}']
    assert shown.splitlines() == lines


@pytest.mark.reuse_kernel
def test_a_background_calls_status_line_follows_the_call(frontend: KernelFrontend) -> None:
    """running, waiting for an answer (while the question is open), maybe running again, done: as it
    happens, in the call's display and the handle's (shown in a later cell); the calling cell then reads in
    order: the question's line, the status line, the result."""
    connect(frontend)
    calling = ok(frontend.run("call = srv.call_tool_background('ask_name')"))
    handle_cell = ok(frontend.run("call"))
    cells = (calling.msg_id, handle_cell.msg_id)
    shown = [
        m["content"]
        for m in list(frontend.iopub_log)
        if m["msg_type"] == "display_data" and m["parent_header"].get("msg_id") in cells
    ]
    prefix = "tool 'ask_name' on 'demo': "
    texts = [c["data"]["text/plain"].removeprefix(prefix) for c in shown]
    # (the handle's own line is made in the next cell: the question may have come by then)
    assert texts[0] == "running" and texts[1] in ("running", "waiting for an answer")
    call_display, handle = (c["transient"]["display_id"] for c in shown)
    assert handle == f"{call_display}-status"
    form = pending_form(frontend).seen()
    # The call's line (one model) says it too.
    line = next(w for w in frontend.widgets.values() if w.state.get("status", "").startswith(prefix))
    frontend.wait_until(
        lambda: line.state["status"] == prefix + "waiting for an answer", timeout=30, what="waiting"
    )
    form.type("Name *", "Dee").click("Accept")
    ok(frontend.run("call.result()"))
    frontend.wait_until(
        lambda: any("done" in u.get("text/plain", "") for u in status_updates(frontend, handle)),
        timeout=30,
        what="the handle's final line",
    )
    states = [texts[1], *(u["text/plain"].removeprefix(prefix) for u in status_updates(frontend, handle))]
    changes = [s for i, s in enumerate(states) if i == 0 or states[i - 1] != s]
    # ("running" again only when the call had not ended yet by the time the answer's update was shown)
    assert changes[changes[0] == "running" :] in (
        ["waiting for an answer", "done"],
        ["waiting for an answer", "running", "done"],
    )
    final = status_updates(frontend, call_display)[-1]["text/plain"].splitlines()
    assert final[0].startswith("Request from demo") and final[0].endswith(": accepted by the person")
    assert final[1] == prefix + "done"
    assert any('"action": "accept"' in line for line in final[2:])  # the result, under the status line
    assert not any("Dee" in line for line in final)  # quoting no answer (#18)


def status_updates(fe: KernelFrontend, ident: str) -> list[dict[str, Any]]:
    return [
        m["content"]["data"]
        for m in list(fe.iopub_log)
        if m["msg_type"] == "update_display_data"
        and m["content"].get("transient", {}).get("display_id") == ident
    ]


@pytest.mark.reuse_kernel
def test_await_on_a_background_call(frontend: KernelFrontend) -> None:
    connect(frontend)
    ok(frontend.run("call = srv.call_tool_background('ask_name')"))
    form = pending_form(frontend)
    msg_id = frontend.execute("print(parse(await call))")
    # Answered while the cell starts: the kernel may queue this behind the cell until its wait begins.
    form.seen().type("Name *", "Cy").click("Accept")
    assert (
        ok(frontend.wait_cell(msg_id, timeout=60)).stdout
        == "{'action': 'accept', 'content': {'name': 'Cy'}}\n"
    )


@pytest.mark.reuse_kernel
def test_late_question_renders_in_the_calling_cell(frontend: KernelFrontend) -> None:
    connect(frontend)
    calling = ok(frontend.run("call = srv.call_tool_background('ask_later', {'delay': 2})"))
    # Other cells run before the server asks; the form still goes to the calling cell.
    other = ok(frontend.run("import time\ntime.sleep(0.5)\nprint('other')"))
    form = pending_form(frontend).seen()
    assert_shown_in(calling, form)
    assert not shown_in(other, form.model.comm_id, frontend)
    form.click("Cancel")
    assert ok(frontend.run("print(parse(call.result()))")).stdout == "{'action': 'cancel'}\n"


@pytest.mark.reuse_kernel
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_two_forms_at_once(frontend: KernelFrontend, mode: str) -> None:
    connect(frontend, mode)
    msg_id = frontend.execute("print(parse(await srv.call_tool('ask_both')))")
    seen: set[str] = set()
    forms = [pending_form(frontend, exclude=seen).seen(), pending_form(frontend, exclude=seen).seen()]
    for form in forms:
        if "Question A" in form.lines():
            form.type("Name *", "Al").click("Accept")
        else:
            form.click("Decline")
    cell = ok(frontend.wait_cell(msg_id, timeout=60))
    assert (
        cell.stdout == "{'a': {'action': 'accept', 'content': {'name': 'Al'}}, 'b': {'action': 'decline'}}\n"
    )


# --------------------------------------------------------------------------- interrupts and queues


@pytest.mark.reuse_kernel
@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("style", list(CALLS))
def test_interrupt_while_waiting(frontend: KernelFrontend, style: str, mode: str) -> None:
    connect(frontend, mode)
    msg_id = frontend.execute(CALLS[style])
    pending_form(frontend).seen()
    queued = frontend.execute("print('after')")
    frontend.interrupt()
    cell = frontend.wait_cell(msg_id, timeout=30)
    assert cell.status == "error"
    assert cell.ename in ("KeyboardInterrupt", "CancelledError")  # the types code catches, as before
    # The person's own interrupt: one line in the cell, no traceback through the client's internals.
    (said,) = "\n".join(cell.traceback).splitlines()
    assert said.endswith(
        f"{cell.ename}\x1b[0m: tool 'ask_name' on 'demo' was stopped: the kernel was interrupted"
    ), said
    line = final_line(frontend, "interrupted")
    assert line.startswith("Request from demo: cancelled")
    assert line.count("interrupted") == 1, line  # said once, not "interrupted (the kernel was interrupted)"
    if mode == "auto":
        assert "the call was dropped" in line
    # The kernel stays usable; the queued cell ran (or was aborted by the error), never inside the wait.
    after = frontend.wait_cell(queued, timeout=30)
    assert after.status in ("ok", "aborted")
    assert (
        ok(frontend.run("print(srv.call_tool_sync('echo', {'text': 'fine'}).content[0].text)")).stdout
        == "fine\n"
    )


HOLD_THE_CLIENT = """
import threading, time
from mcp_widgets.client.runtime import RUNTIME
release = threading.Event()

def _hold_the_client_once_asked():  # the client's loop stays busy from the form's showing until released
    while not any(r.card is not None for r in pending_requests()):
        time.sleep(0.01)
    RUNTIME.loop().call_soon_threadsafe(release.wait, 60)

threading.Thread(target=_hold_the_client_once_asked, daemon=True).start()
"""


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("style", list(CALLS))
def test_an_interrupted_call_leaves_no_question_pending_however_busy_the_client(
    frontend: KernelFrontend, style: str, mode: str
) -> None:
    """The interrupt ends the call's questions at once, in the cell: not once the client's loop gets round
    to cancelling the call (on a loaded machine, after the next cell had run)."""
    connect(frontend, mode)
    ok(frontend.run(HOLD_THE_CLIENT))
    msg_id = frontend.execute(CALLS[style])
    pending_form(frontend).seen()
    frontend.settle(0.3)  # the hold is scheduled within 10 ms of the form's showing
    frontend.interrupt()
    cell = frontend.wait_cell(msg_id, timeout=30)
    assert cell.ename in ("KeyboardInterrupt", "CancelledError"), cell
    assert ok(frontend.run("print(pending_requests())")).stdout == "[]\n"
    ok(frontend.run("release.set()"))
    assert final_line(frontend, "interrupted").startswith("Request from demo: cancelled")


INTERRUPT_WHILE_BUILDING = """
import os, signal
from mcp_widgets.core.history import default_history

def _interrupt_on_begin(change, entry):  # runs while the form is being built (its history entry begins)
    if entry is not None and entry.outcome is None:
        os.kill(os.getpid(), signal.SIGINT)

default_history().subscribe(_interrupt_on_begin)
"""


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("style", list(CALLS))
def test_interrupt_while_the_form_is_built(frontend: KernelFrontend, style: str, mode: str) -> None:
    """An interrupt landing while the form is built is held back until the form is whole, then taken: the
    form ends as interrupted, the cell gets it, and the kernel lives on (an awaiting cell's kernel died)."""
    connect(frontend, mode)
    ok(frontend.run(INTERRUPT_WHILE_BUILDING))
    cell = frontend.wait_cell(frontend.execute(CALLS[style]), timeout=30)
    assert cell.status == "error"
    assert cell.ename in ("KeyboardInterrupt", "CancelledError")
    assert final_line(frontend, "interrupted").startswith("Request from demo: cancelled")
    assert ok(frontend.run("print(pending_requests())")).stdout == "[]\n"


@pytest.mark.reuse_kernel
def test_queued_cells_run_after_the_wait_in_order(frontend: KernelFrontend) -> None:
    connect(frontend)
    waiting = frontend.execute(CALLS["sync"])
    form = pending_form(frontend).seen()
    first = frontend.execute("order = ['first']")
    second = frontend.execute("order.append('second'); print(order)")
    frontend.settle(0.5)
    assert not frontend.cells[first].done  # queued, not run inside the wait
    form.type("Name *", "Q").click("Accept")
    ok(frontend.wait_cell(waiting, timeout=60))
    ok(frontend.wait_cell(first, timeout=30))
    assert ok(frontend.wait_cell(second, timeout=30)).stdout == "['first', 'second']\n"


# --------------------------------------------------------------------------- nobody looking, server leaving


@pytest.mark.reuse_kernel
def test_unseen_form_is_declined(frontend: KernelFrontend) -> None:
    connect(frontend)
    code = (
        f"mwc.questions.answering.LOOK_GRACE = 1.0\n{NO_PAGE}\nprint(parse(await srv.call_tool('ask_name')))"
    )
    cell = ok(frontend.run(code, timeout=60))
    assert cell.stdout == "{'action': 'decline'}\n"
    final_line(frontend, "no frontend showed the form")


def test_env_policy_in_kernel(frontend: KernelFrontend) -> None:
    connect(frontend)
    code = (
        "os.environ['MCP_WIDGETS_HANDLER'] = 'accept_defaults'\n"
        "print(parse(srv.call_tool_sync('ask_defaults')))"
    )
    cell = ok(frontend.run(code, timeout=60))
    assert cell.stdout == "{'action': 'accept', 'content': {'color': 'red', 'fast': True, 'size': 3}}\n"
    final_line(frontend, "accepted by policy 'MCP_WIDGETS_HANDLER=accept_defaults'")


@pytest.mark.reuse_kernel
def test_handler_runs_on_the_main_thread(frontend: KernelFrontend) -> None:
    connect(frontend, extra=", handler=handlers.scripted([{'name': 'H'}])")
    code = (
        "import threading\n"
        "threads = []\n"
        "orig = srv.handler\n"
        "async def spy(card):\n"
        "    threads.append(threading.current_thread() is threading.main_thread())\n"
        "    await orig(card)\n"
        "srv.handler = spy\n"
        "a = parse(await srv.call_tool('ask_name'))\n"
        "srv.handler = handlers.scripted(['cancel'])\n"
        "b = parse(srv.call_tool_sync('ask_name'))\n"
        "print(a, b, threads)"
    )
    cell = ok(frontend.run(code, timeout=60))
    assert cell.stdout == "{'action': 'accept', 'content': {'name': 'H'}} {'action': 'cancel'} [True]\n"


@pytest.mark.reuse_kernel
def test_waiting_handler_in_a_blocking_call_fails_cleanly(frontend: KernelFrontend) -> None:
    connect(frontend)
    code = (
        "async def slow(card):\n"
        "    await asyncio.sleep(0.1)\n"
        "    card.accept()\n"
        "srv.handler = slow\n"
        "print(parse(srv.call_tool_sync('ask_defaults')))\n"
        "print(parse(await srv.call_tool('ask_defaults'))['action'])"
    )
    cell = ok(frontend.run(code, timeout=90))
    # Blocked: the handler cannot wait, the request is cancelled and the cell says why; awaited: it works.
    assert cell.stdout == "{'action': 'cancel'}\naccept\n"
    final_line(frontend, "Handler 'slow' failed: RuntimeError")


@pytest.mark.reuse_kernel
def test_server_withdraws_in_kernel(frontend: KernelFrontend) -> None:
    connect(frontend, "legacy")
    msg_id = frontend.execute("print(srv.call_tool_sync('withdraw', {'after': 1.0}).content[0].text)")
    assert ok(frontend.wait_cell(msg_id, timeout=60)).stdout == "withdrawn\n"
    final_line(frontend, "the server withdrew the request")


def test_stdio_server_in_kernel_and_restart(frontend: KernelFrontend) -> None:
    connect(frontend, "legacy", target="stdio_command()")
    pid = int(ok(frontend.run("print(srv.call_tool_sync('pid').content[0].text)")).stdout)
    msg_id = frontend.execute(CALLS["await"])
    pending_form(frontend).seen().type("Name *", "Sd").click("Accept")
    assert "'Sd'" in ok(frontend.wait_cell(msg_id, timeout=60)).stdout
    # A restarted kernel leaves no server process behind.
    assert frontend.km is not None
    frontend.km.restart_kernel(now=True)
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its parent counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


# --------------------------------------------------------------------------- widget callbacks


def test_calls_from_widget_callbacks(frontend: KernelFrontend) -> None:
    connect(frontend)
    code = (
        "out = W.Output()\n"
        "errors, calls = [], []\n"
        "block = W.Button(description='block')\n"
        "start = W.Button(description='start')\n"
        "def blocking(_):\n"
        "    try:\n"
        "        srv.call_tool_sync('ask_name')\n"
        "    except BlockingCallError as exc:\n"
        "        errors.append(type(exc).__name__)\n"
        "block.on_click(blocking)\n"
        "start.on_click(lambda _: calls.append(srv.call_tool_background('ask_name', output=out)))\n"
        "display(block, start, out)"
    )
    ok(frontend.run(code))
    frontend.click(frontend.wait_widget(where=lambda w: w.state.get("description") == "block"))
    assert ok(frontend.run("print(errors, pending_requests())")).stdout == "['BlockingCallError'] []\n"
    frontend.click(frontend.wait_widget(where=lambda w: w.state.get("description") == "start"))
    # The form goes into the Output (inside the call's container), not into some cell.
    out = frontend.wait_widget("OutputModel")

    # (A background call's entry is its status line, as text, until the form needs the call's line.)
    def lines() -> list[dict[str, Any]]:
        return [o["data"][VIEW] for o in out.state.get("outputs", ()) if VIEW in o["data"]]

    frontend.wait_until(lambda: bool(lines()), timeout=60, what="the Output to get the call's line")
    view = lines()[0]
    line = frontend.widgets[model_id(view["model_id"])]
    assert is_call_line(line)
    forms: list[WidgetModel] = []

    def form_inside() -> bool:
        kids = [frontend.widgets.get(model_id(r)) for r in line.state.get("questions", [])]
        forms[:] = [k for k in kids if is_form(k)]
        return bool(forms)

    frontend.wait_until(form_inside, timeout=60, what="the form in the Output")
    form = Form(frontend, forms[0]).seen()
    form.type("Name *", "Cb").click("Accept")
    cell = ok(frontend.run("print(parse(calls[0].result()))"))
    assert cell.stdout == "{'action': 'accept', 'content': {'name': 'Cb'}}\n"


def test_the_first_call_ever_from_a_widget_callback_refuses_to_block(frontend: KernelFrontend) -> None:
    """In a fresh kernel, only the import has run when a Button's callback connects and calls: the import
    alone marked the kernel's comm handlers, so the blocking call knows it is inside a callback (it would
    freeze the kernel) and refuses, though the client thread did not exist yet."""
    code = (
        "import ipywidgets as W\n"
        "from IPython.display import display\n"
        "import mcp_widgets.client as mwc\n"
        "from mcp_widgets.client.runtime import RUNTIME\n"
        "from mcp_widgets.core.exceptions import BlockingCallError\n"
        "from tests.servers.demo import build_server\n"
        "seen = [RUNTIME.running]\n"
        "def on_click(_):\n"
        "    srv = mwc.connect_sync(build_server())\n"
        "    try:\n"
        "        srv.call_tool_sync('echo', {'text': 'x'})\n"
        "    except BlockingCallError as exc:\n"
        "        seen.append(type(exc).__name__)\n"
        "    finally:\n"
        "        srv.close()\n"
        "first = W.Button(description='first')\n"
        "first.on_click(on_click)\n"
        "display(first)"
    )
    ok(frontend.run(code, timeout=120))
    frontend.click(frontend.wait_widget(where=lambda w: w.state.get("description") == "first"))
    # An idle kernel handles the click by itself, before the next cell.
    assert ok(frontend.run("print(seen)")).stdout == "[False, 'BlockingCallError']\n"


# --------------------------------------------------------------------------- what a saved notebook keeps

SAVED_STATE = """
import json
from ipywidgets import Widget
print(json.dumps(Widget.get_manager_state(drop_defaults=False), default=str))
"""
"""What a front end saves with a notebook ("Save Widget State"): every model's state, as the kernel has it."""


@pytest.mark.reuse_kernel
def test_a_saved_notebooks_widget_state_holds_no_typed_value(frontend: KernelFrontend) -> None:
    canary = "canary-saved-4d17"
    connect(frontend)
    ok(frontend.run("call = srv.call_tool_background('ask_name')"))  # other cells run while it asks
    form = pending_form(frontend).seen()
    assert form.model.model_name == "AnyModel"  # models per question: 1
    form.type("Name *", canary)  # as the page sends it: a message, never state
    frontend.wait_until(lambda: form.model.state.get("accept_ok") is True, timeout=30, what="Accept enabled")
    # While the form waits with the value typed: the kernel's widget state of every model, and every state
    # the front end was ever sent, hold no trace of it.
    saved = frontend.run(SAVED_STATE, timeout=60)
    assert saved.status == "ok" and '"state"' in saved.stdout
    assert canary not in saved.stdout
    states = [m for m in frontend.iopub_log if m["msg_type"] in ("comm_open", "comm_msg")]
    assert states and canary not in json.dumps([m["content"] for m in states])
    form.click("Accept")
    cell = ok(frontend.run("print(parse(call.result()))", timeout=60))
    assert cell.stdout == f"{{'action': 'accept', 'content': {{'name': '{canary}'}}}}\n"
    after = ok(frontend.run(SAVED_STATE, timeout=60))
    assert canary not in after.stdout
