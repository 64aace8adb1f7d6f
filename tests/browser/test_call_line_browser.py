"""A call's line draws the widgets placed in it, each a model of its own, inside itself: in JupyterLab and
in marimo.

The line (`CallLine`) asks the widget manager for each placed model. JupyterLab's makes it a view of its
own, drawn by the model's own module; marimo's hands a view another model's state, `send` and `on`, not its
module, so there the line draws it with the question card's renderer joined into its own module. A stand-in
question (its module, and the same renderer joined into the line) keeps the test about the way through: a
press in the drawn question reaches Python as the question model's message (in marimo: after the cell
returned), and Python's answer redraws the line.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.marimo_rig import notebook

from .conftest import OpenMarimo, OpenNotebook
from .marimo_server import MarimoServer
from .test_marimo_browser import RUN_MS, cell

pytestmark = pytest.mark.browser

LINE_WITH_A_QUESTION = r'''
import anywidget
import traitlets as t

from mcp_widgets.widgets import CallLine
from mcp_widgets.widgets._keys_assets import asset

STAND_IN = """
function renderQuestion({ model, el }) {
  const button = document.createElement("button");
  button.className = "stand-in";
  button.textContent = model.get("label");
  button.onclick = () => model.send({ press: "accept" });
  el.append(button);
}
"""


OWN_VIEW = """
export default {
  render({ model, el }) {
    el.classList.add("own-view");
    renderQuestion({ model, el });
  },
};
"""


class Question(anywidget.AnyWidget):
    _esm = STAND_IN + OWN_VIEW  # JupyterLab's own view of it (marimo: unused)
    label = t.Unicode("Accept <b>me</b>").tag(sync=True)


class LineWithRenderer(CallLine):  # marimo draws the question with the renderer joined here
    _esm = t.Unicode(asset("literal.js") + STAND_IN + asset("call_line.js")).tag(sync=True)


question = Question()
line = LineWithRenderer(status="tool 'ask' on 'probe': waiting for an answer")
question.on_msg(lambda _w, content, _b: setattr(line, "status", f"answered: {content['press']}"))
line.questions = [question]
line
'''


def press_and_see_the_answer(where: Any) -> None:
    from playwright.sync_api import expect

    button = where.locator(".mcp-call-line-question .stand-in")
    expect(button).to_have_text("Accept <b>me</b>", timeout=RUN_MS)  # the question's own state, as text
    expect(where.locator(".mcp-call-line-status")).to_have_text(
        "tool 'ask' on 'probe': waiting for an answer"
    )
    button.click()
    expect(where.locator(".mcp-call-line-status")).to_have_text("answered: accept")


def test_the_line_draws_a_question_model_inside_itself_in_jupyterlab(open_notebook: OpenNotebook) -> None:
    nb = open_notebook([LINE_WITH_A_QUESTION])
    nb.run(0)
    nb.wait_done(0)
    press_and_see_the_answer(nb.output(0))
    # Drawn as the widget manager's view of the question, by the question's own module.
    assert nb.output(0).locator(".mcp-call-line-question .own-view .stand-in").count() == 1


def test_the_line_draws_a_question_model_inside_itself_in_marimo(
    open_marimo: OpenMarimo, marimo_server: MarimoServer
) -> None:
    page = open_marimo(marimo_server.write("line_question.py", notebook(LINE_WITH_A_QUESTION)))
    # The cell has returned (marimo hands no click to a running cell): the press reaches Python now.
    press_and_see_the_answer(cell(page, "class LineWithRenderer").locator(".output-area"))
