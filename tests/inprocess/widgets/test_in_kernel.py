"""A form in a real kernel, driven over the widget protocol exactly as a browser drives it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest
from kernel.harness import KernelFrontend

pytestmark = pytest.mark.kernel

CANARY = "canary-kernel-93b1"
BUILD = """
from mcp_widgets.widgets import ElicitationForm
form = ElicitationForm(
    "Sign up?",
    {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]},
    server="shop",
)
display(form)
"""
SHARED = """
from mcp_widgets.widgets._fields import shared_models
print(" ".join(m.model_id for m in shared_models()))
"""


@pytest.fixture
def fe() -> Iterator[KernelFrontend]:
    with KernelFrontend(sys.executable) as frontend:
        yield frontend


def build(fe: KernelFrontend) -> str:
    cell = fe.run(BUILD)
    assert cell.status == "ok", cell.traceback
    return str(cell.results[0]["application/vnd.jupyter.widget-view+json"]["model_id"])


def test_typing_and_clicking_over_the_wire_answers_and_leaves_one_model(fe: KernelFrontend) -> None:
    before = set(fe.widgets)
    root = build(fe)
    form = fe.widgets[root]
    assert form.model_name == "AnyModel" and form.state["_view_count"] == 0
    opened = set(fe.widgets) - before
    shared = set(fe.run(SHARED).stdout.split())
    print(f"\nmodels opened in the kernel for a 1-field form: {len(opened - shared)}")
    assert opened - shared == {root}  # models per question: 1
    assert form.state["accept_ok"] is False
    fe.update(root, {"_view_count": 1})  # what the browser's widget manager reports once it renders a view
    fe.send_custom(root, {"edit": "name", "value": CANARY, "view": "v1"})  # fields.js, on each keystroke
    fe.wait_until(lambda: form.state["accept_ok"] is True, timeout=30, what="Accept enabled")
    fe.send_custom(root, {"press": "accept"})
    fe.wait_until(lambda: bool(form.state["closing_line"]), timeout=30, what="the closing line")
    cell = fe.run("print(form.view_count, form.state.value, form.result.model_dump_json(exclude_none=True))")
    assert cell.stdout.split(" ", 2)[:2] == ["1", "accepted"]
    assert json.loads(cell.stdout.split(" ", 2)[2]) == {"action": "accept", "content": {"name": CANARY}}
    assert form.state["closing_line"] == "Request from shop: accepted by the person"
    assert all(CANARY not in json.dumps(w.state) for w in fe.widgets.values())
    fe.run("form.close()")
    fe.settle(0.2)
    assert root not in fe.widgets


def test_escape_from_the_page_cancels(fe: KernelFrontend) -> None:
    root = build(fe)
    assert "keydown" in fe.widgets[root].state["_esm"]  # the keyboard helper's code, in the form's module
    fe.send_custom(root, {"key": "Escape"})
    fe.wait_until(
        lambda: bool(fe.widgets[root].state["closing_line"]), timeout=30, what="the form to resolve"
    )
    cell = fe.run("print(form.state.value, form.outcome.describe())")
    assert cell.stdout.strip() == "cancelled cancelled by the person"


CLOSE_YOUNG = """
import time
from mcp_widgets.widgets import CallLine
line = CallLine(status="quick")
display(line)
line.close()
print(line.comm is None, time.monotonic())
"""


def _closed(fe: KernelFrontend, comm_id: str) -> bool:
    return any(
        m["msg_type"] == "comm_close" and m["content"]["comm_id"] == comm_id for m in list(fe.iopub_log)
    )


def test_a_model_closed_as_it_opened_closes_in_the_page_once_the_page_had_time_to_load_it(
    fe: KernelFrontend,
) -> None:
    # anywidget gives a page 2 s to load a model's module; a model closed before then makes the page report
    # "Failed to initialize model" as an uncaught error. The kernel is done with it at once.
    cell = fe.run(CLOSE_YOUNG)
    assert cell.status == "ok", cell.traceback
    assert cell.stdout.split()[0] == "True"  # closed in the kernel
    line_id = str(cell.results[0]["application/vnd.jupyter.widget-view+json"]["model_id"])
    fe.settle(1.0)
    assert line_id in fe.widgets and not _closed(fe, line_id)  # the page still has it, a second later
    fe.wait_until(lambda: line_id not in fe.widgets, timeout=10, what="the close reaching the page")


def test_a_model_whose_view_answered_closes_in_the_page_at_once(fe: KernelFrontend) -> None:
    cell = fe.run("from mcp_widgets.widgets import CallLine\nline = CallLine(status='seen')\ndisplay(line)")
    assert cell.status == "ok", cell.traceback
    line_id = str(cell.results[0]["application/vnd.jupyter.widget-view+json"]["model_id"])
    fe.update(line_id, {"_view_count": 1})  # the page rendered it: its module loaded
    fe.settle(0.2)
    assert fe.run("line.close()").status == "ok"
    fe.settle(0.5)
    assert line_id not in fe.widgets
