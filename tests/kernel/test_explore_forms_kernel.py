"""A prompt form and a template form in real kernels: the test acts as the browser, types, clicks Run and
Read, reads the result areas; once the forms are closed, no widget model the browser holds (what a notebook
saved with widget state keeps) has anything that was typed, and neither do the wire nor the history."""

from __future__ import annotations

import json

import pytest

from .harness import CellResult, KernelFrontend, WidgetModel

pytestmark = [pytest.mark.kernel, pytest.mark.one_per_mechanism]

CANARY = "Canary-Kernel-3391"

SETUP = """
import json
from IPython.display import display
from mcp.server.mcpserver import MCPServer
import mcp_widgets.client as mwc
mwc.questions.answering.LOOK_GRACE = 30  # the test frontend may be slow to report a view on a loaded machine
notes = MCPServer("notes")

@notes.prompt(name="greet", description="Greets someone.")
def greet(who: str) -> str:
    return f"Say hello to {who}."

@notes.resource("notes://{topic}{?lang}", name="Notes")
def read_notes(topic: str, lang: str = "en") -> str:
    return f"Notes on {topic} in {lang}."

srv = mwc.connect_sync(notes)
print("connected")
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def ref_id(ref: str) -> str:
    return ref.replace("IPY_MODEL_", "")


class FormView:
    """A prompt or template form as the frontend sees it."""

    def __init__(self, fe: KernelFrontend, css: str) -> None:
        self.fe = fe
        self.model = fe.wait_widget(
            "VBoxModel", where=lambda w: css in w.state.get("_dom_classes", ()), timeout=60
        )

    def kids(self) -> list[WidgetModel]:
        refs = self.model.state.get("children", [])
        return [self.fe.widgets[ref_id(r)] for r in refs if ref_id(r) in self.fe.widgets]

    def type(self, description: str, value: object) -> None:
        field = next(k for k in self.kids() if k.state.get("description") == description)
        self.fe.update(field, {"value": value})

    def button(self, label: str) -> WidgetModel:
        hbox = next(k for k in self.kids() if k.model_name == "HBoxModel")
        found = [self.fe.widgets[ref_id(r)] for r in hbox.state["children"]]
        return next(b for b in found if b.state.get("description") == label)

    def result_text(self) -> str:
        output = next(k for k in self.kids() if k.model_name == "OutputModel")
        outs = output.state.get("outputs", [])
        return "".join(o.get("text", "") for o in outs if o.get("output_type") == "stream")

    def run(self, label: str, words: str) -> str:
        button = self.button(label)
        self.fe.wait_until(lambda: button.state.get("disabled") is False, timeout=30, what=f"{label} enabled")
        self.fe.click(button)
        self.fe.wait_until(lambda: words in self.result_text(), timeout=60, what=f"{words!r} in the result")
        return self.result_text()


def test_prompt_and_template_forms_typed_run_read_and_closed(frontend: KernelFrontend) -> None:
    assert "connected" in ok(frontend.run(SETUP, timeout=180)).stdout
    ok(frontend.run('prompt = srv.prompt_form("greet")\ndisplay(prompt)'))
    prompt = FormView(frontend, "mcp-widgets-prompt-form")
    run = prompt.button("Run")
    frontend.wait_until(lambda: run.state.get("disabled") is True, timeout=30, what="Run disabled at first")
    prompt.type("Who *", CANARY)
    text = prompt.run("Run", f"Say hello to {CANARY}.")
    assert "1 message:\n[user]\n" in text

    ok(frontend.run('template = srv.template_form("notes://{topic}{?lang}")\ndisplay(template)'))
    template = FormView(frontend, "mcp-widgets-template-form")
    template.type("Topic *", CANARY + " x")
    reads = [k.state.get("value", "") for k in template.kids() if k.model_name == "LabelModel"]
    frontend.wait_until(
        lambda: any(f"Reads: notes://{CANARY}%20x" == k.state.get("value") for k in template.kids()),
        timeout=30,
        what="the URI it will read",
    )
    text = template.run("Read", f"Notes on {CANARY} x in en.")
    assert f"Resource: notes://{CANARY}%20x (text/plain)" in text, reads

    printed = ok(
        frontend.run(
            "prompt.close(); template.close()\n"
            "print(json.dumps([srv.wire.records(), srv.history.records(), repr(prompt), repr(template)],"
            " default=str))"
        )
    ).stdout
    assert CANARY not in printed and "[redacted: 1 argument: who]" in printed
    frontend.settle(0.5)
    kept = json.dumps([w.state for w in frontend.widgets.values()], default=str)
    assert CANARY not in kept
