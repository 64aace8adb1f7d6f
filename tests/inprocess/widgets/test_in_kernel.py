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


def test_typing_and_clicking_over_the_wire_answers_and_closes_the_models(fe: KernelFrontend) -> None:
    root = build(fe)
    assert fe.widgets[root].state["_view_count"] == 0
    opened = set(fe.widgets)
    print(f"\nmodels opened in the kernel for a 1-field form: {len(opened)}")
    name = fe.wait_widget("TextModel")
    accept = fe.wait_widget("ButtonModel", where=lambda w: w.state["description"] == "Accept")
    assert accept.state["disabled"] is True
    fe.update(root, {"_view_count": 1})  # what the browser's widget manager reports once it renders a view
    fe.update(name, {"value": CANARY})
    fe.wait_until(lambda: not fe.widgets[accept.comm_id].state["disabled"], timeout=30, what="Accept enabled")
    fe.click(accept)
    fe.wait_until(lambda: accept.comm_id not in fe.widgets, timeout=30, what="the Accept model closed")
    cell = fe.run("print(form.view_count, form.state.value, form.result.model_dump_json(exclude_none=True))")
    assert cell.stdout.split(" ", 2)[:2] == ["1", "accepted"]
    assert json.loads(cell.stdout.split(" ", 2)[2]) == {"action": "accept", "content": {"name": CANARY}}
    left = set(fe.widgets) & opened
    assert root in left
    shared = set(fe.run(SHARED).stdout.split())
    assert shared and shared <= set(fe.widgets)
    assert len(set(fe.widgets) - shared) == 2, "the form and its line (and the shared Layouts and Styles)"
    lines = [w.state["value"] for w in fe.widgets.values() if w.model_name == "LabelModel"]
    assert lines == ["Request from shop: accepted by the person"]
    assert all(CANARY not in json.dumps(w.state) for w in fe.widgets.values())
    fe.run("form.close()")
    fe.settle(0.2)
    assert set(fe.widgets) == shared


def test_escape_from_the_keyboard_helper_cancels(fe: KernelFrontend) -> None:
    root = build(fe)
    keys = fe.wait_widget("AnyModel")
    assert "keydown" in keys.state["_esm"]
    # The helper is shared by every form: its views find the form's model by the id among the box's classes
    # and send through it.
    assert f"mcp-widgets-keys-{root}" in fe.widgets[root].state["_dom_classes"]
    fe.comm_msg(root, {"method": "custom", "content": {"key": "Escape"}})
    fe.wait_until(
        lambda: len(fe.widgets[root].state["children"]) == 1, timeout=30, what="the form to resolve"
    )
    cell = fe.run("print(form.state.value, form.outcome.describe())")
    assert cell.stdout.strip() == "cancelled cancelled by the person"
    assert keys.comm_id in fe.widgets  # no form closes the shared helper
