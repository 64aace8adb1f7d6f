"""A tool form in real kernels: the test acts as the browser, types the arguments and clicks Run.

The result arrives in the form's result area (an Output); a question the tool asks while it runs appears
there too, is answered like any form, and the tool's result follows. Every ipykernel release the kernel
fixtures know is covered.
"""

from __future__ import annotations

import pytest

from .harness import CellResult, KernelFrontend, WidgetModel
from .test_client_kernel import RESET as CLIENT_RESET
from .test_client_kernel import Form as Question
from .test_client_kernel import is_form

# One kernel per release serves the module's cases (`reuse_kernel`: a case that fails or leaves it unclean
# gets a fresh one): what they test happens after the kernel's first moments.
pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.one_per_mechanism]
RESET = CLIENT_RESET

TOOL_FORM_CLASS = "mcp-widgets-tool-form"

SETUP = """
from IPython.display import display
import mcp_widgets.client as mwc
from mcp_widgets.demo import create_server
from mcp_widgets.widgets._tool_form import tool_form
mwc.questions.answering.LOOK_GRACE = 30  # the test frontend may be slow to report a view on a loaded machine
srv = mwc.connect_sync(create_server(sign_in_port=0))
print("connected")
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def ref_id(ref: str) -> str:
    return ref.replace("IPY_MODEL_", "")


class ToolFormView:
    """The tool form as the frontend sees it."""

    def __init__(self, fe: KernelFrontend) -> None:
        self.fe = fe
        self.model = fe.wait_widget(
            "VBoxModel", where=lambda w: TOOL_FORM_CLASS in w.state.get("_dom_classes", ()), timeout=60
        )

    def kids(self) -> list[WidgetModel]:
        refs = self.model.state.get("children", [])
        return [self.fe.widgets[ref_id(r)] for r in refs if ref_id(r) in self.fe.widgets]

    def type(self, description: str, value: object) -> ToolFormView:
        field = next(k for k in self.kids() if k.state.get("description") == description)
        self.fe.update(field, {"value": value})
        return self

    def button(self, label: str) -> WidgetModel:
        hbox = next(k for k in self.kids() if k.model_name == "HBoxModel")
        for ref in hbox.state["children"]:
            button = self.fe.widgets[ref_id(ref)]
            if button.state.get("description") == label:
                return button
        raise AssertionError(f"no {label} button")

    def output(self) -> WidgetModel:
        return next(k for k in self.kids() if k.model_name == "OutputModel")

    def result_text(self) -> str:
        outputs = self.output().state.get("outputs", [])
        return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")

    def wait_result(self, words: str, timeout: float = 60) -> str:
        self.fe.wait_until(
            lambda: words in self.result_text(), timeout=timeout, what=f"{words!r} in the result"
        )
        return self.result_text()


def show_form(fe: KernelFrontend, tool: str) -> tuple[CellResult, ToolFormView]:
    assert "connected" in ok(fe.run(SETUP, timeout=180)).stdout
    cell = ok(fe.run(f"form = tool_form(srv, {tool!r})\ndisplay(form)"))
    return cell, ToolFormView(fe)


def test_fill_and_run_from_the_browser(frontend: KernelFrontend) -> None:
    cell, form = show_form(frontend, "search_files")
    view = cell.results[0]["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == form.model.comm_id  # the form shows in the cell that built it
    run = form.button("Run")
    frontend.wait_until(lambda: run.state.get("disabled") is True, timeout=30, what="Run disabled at first")
    form.type("Query *", "tmp").type("Options", '{"min_size": 100}')
    frontend.wait_until(lambda: run.state.get("disabled") is False, timeout=30, what="Run enabled")
    frontend.click(run)
    text = form.wait_result('"total": 2')
    assert '"name": "cache.tmp"' in text and '"name": "draft.tmp"' in text
    assert (
        ok(frontend.run("print(form.result.structured_content['total'], form.running)")).stdout == "2 False\n"
    )
    # Bad JSON is refused inline, and Run is disabled until it is fixed; then the form runs again.
    form.type("Options", "{oops")
    frontend.wait_until(
        lambda: run.state.get("disabled") is True, timeout=30, what="Run disabled by bad JSON"
    )
    notes = [k.state.get("value", "") for k in form.kids() if k.model_name == "LabelModel"]
    assert any("not valid JSON" in n for n in notes)
    form.type("Options", "").type("Query *", "notes")
    frontend.wait_until(lambda: run.state.get("disabled") is False, timeout=30, what="Run enabled again")
    frontend.click(run)
    text = form.wait_result('"total": 1')
    assert "notes.txt" in text and "draft.tmp" not in text


def test_a_question_the_tool_asks_appears_in_the_result_area(frontend: KernelFrontend) -> None:
    _cell, form = show_form(frontend, "weather")
    frontend.click(form.button("Run"))  # no city: the tool asks for one

    def asking(w: WidgetModel) -> bool:  # the question: one model, still pending
        return is_form(w) and not w.state.get("closing_line")

    question = frontend.wait_widget("AnyModel", where=asking, timeout=90)
    frontend.update(question, {"_view_count": 1})  # rendered, as JupyterLab's widget manager reports it
    # It is shown inside the tool form's result area (an Output holding the call's display).
    output = form.output()
    frontend.wait_until(
        lambda: _inside(frontend, output, question),
        timeout=30,
        what="the question inside the result area",
    )
    Question(frontend, question).type("City *", "Oslo")  # what its page sends: a message
    frontend.wait_until(lambda: question.state.get("accept_ok") is True, timeout=30, what="Accept enabled")
    Question(frontend, question).click("Accept")
    text = form.wait_result('"city": "Oslo"', timeout=90)
    assert '"fallback": false' in text


def _inside(fe: KernelFrontend, output: WidgetModel, target: WidgetModel) -> bool:
    """Whether `target` is displayed in `output`, directly or inside displayed containers (a call's line)."""
    seen: set[str] = set()
    todo = [
        o.get("data", {}).get("application/vnd.jupyter.widget-view+json", {}).get("model_id", "")
        for o in output.state.get("outputs", [])
    ]
    while todo:
        model_id = todo.pop()
        if not model_id or model_id in seen:
            continue
        if model_id == target.comm_id:
            return True
        seen.add(model_id)
        model = fe.widgets.get(model_id)
        if model is not None:
            # A box's children, or what a call's line draws inside itself (its `questions`).
            todo += [ref_id(r) for r in [*model.state.get("children", []), *model.state.get("questions", [])]]
    return False


def test_copy_as_code_names_the_server_as_the_notebook_does(frontend: KernelFrontend) -> None:
    """Copy as code clicked on the page: the form's page is sent the call as Python (a message to its
    helper, never synced state), calling the server by the name the notebook binds it to."""
    assert "connected" in ok(frontend.run(SETUP, timeout=180)).stdout
    ok(
        frontend.run(
            "weather_station = srv\ndel srv\nform = tool_form(weather_station, 'weather')\ndisplay(form)"
        )
    )
    try:
        form = ToolFormView(frontend)
        form.type("City", "Oslo")
        frontend.click(form.button("Copy as code"))
        style = next(k for k in form.kids() if str(k.state.get("_anywidget_id", "")).endswith("FormStyle"))
        frontend.wait_until(lambda: bool(style.customs), timeout=30, what="the code sent to the page")
        expected = 'await weather_station.call_tool("weather", {"city": "Oslo"})'
        assert style.customs[-1] == {"copy": expected}
        assert "Oslo" not in str(style.state)  # a message, not the helper's state
        assert ok(frontend.run("print(form.code)")).stdout == expected + "\n"
    finally:
        ok(frontend.run("srv = weather_station"))
