"""Server text stays literal in JupyterLab, Notebook 7 and Voila: no markup, and no math (MathJax)."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import LAB, ROOT, UI_MS, UIS, NotebookPage, VoilaPage

pytestmark = pytest.mark.browser

# Each would be typeset by MathJax if it reached it: inline and display math, a style, a link, and markup.
MATH = r"Price $5 and $10; $$\style{color:red}{x}$$ \(x\) \[x\] \href{http://e.x}{y} <b>html</b>"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pick": {
            "type": "string",
            "title": "Title " + MATH,
            "description": "About " + MATH,
            "oneOf": [{"const": "a", "title": "Choice " + MATH}, {"const": "b", "title": "Plain"}],
        },
        "agree": {"type": "boolean", "title": "Agree " + MATH},
    },
}
# A terminal escape and a bidi override in the message: shown as visible escapes.
MESSAGE = "Message " + MATH + " \x1b[31m\u202e"
MESSAGE_SHOWN = "Message " + MATH + " \\x1b[31mU+202E"
FORM_CELL = f"""\
from mcp_widgets.widgets import ElicitationForm
form = ElicitationForm({MESSAGE!r}, {SCHEMA!r}, server="srv $x$")
display(form)
"""
TOOLS_CELL = f"""\
import mcp_widgets as mw
from mcp.server.mcpserver import MCPServer
server = MCPServer("tools")

@server.tool(title={"Tool " + MATH!r}, description={"Does " + MATH!r})
async def price(text: str) -> str:
    return text

srv = await mw.connect(server, name="srv")
srv.tools
"""
URL_CELL = f"""\
from mcp_widgets.widgets import UrlCard
UrlCard({"Sign in " + MATH!r}, "https://example.com/login", server="card $x$")
"""
# Stock widgets with math, typeset in the same page: once these show MathJax's output, it has run.
CONTROL_CELL = "import ipywidgets as w; display(w.Label(value=r'control $y$'))"
GALLERY = ROOT / "build" / "gallery"
MATH_ELEMENTS = "mjx-container, .MathJax, .MathJax_Display"
LITERAL_TEXTS = (MESSAGE_SHOWN, "About " + MATH, "Request from srv $x$")


def assert_literal(out: Any, control: Any | None) -> None:
    """Every piece of server text in `out` is in the DOM as written, and MathJax (seen running on
    `control`) typeset nothing there; no markup became an element."""
    from playwright.sync_api import expect

    if control is not None:
        expect(control.locator("mjx-container")).to_have_count(1, timeout=UI_MS * 2)
    expect(out.locator(MATH_ELEMENTS)).to_have_count(0)  # MathJax has run (on `control`) and left out alone
    for text in LITERAL_TEXTS:
        expect(out.get_by_text(text, exact=True)).to_be_visible()
    expect(out.get_by_text("Title " + MATH, exact=True)).to_have_count(1)  # a radio group's title
    expect(out.locator("label", has_text="Agree " + MATH)).to_have_count(1)
    expect(out.locator("label", has_text="Choice " + MATH)).to_have_count(1)
    expect(out.locator("b, a[href='http://e.x']")).to_have_count(0)


@pytest.mark.parametrize("ui", UIS)
def test_server_text_is_not_typeset_in_a_notebook(open_notebook: Any, ui: str) -> None:
    from playwright.sync_api import expect

    nb: NotebookPage = open_notebook([FORM_CELL, TOOLS_CELL, URL_CELL, CONTROL_CELL], ui=ui)
    for index in range(4):
        nb.run(index)
        nb.wait_done(index, timeout=UI_MS * 4)
    assert_literal(nb.output(0), nb.output(3))
    tools, card = nb.output(1), nb.output(2)
    for text in ("Tool " + MATH, "Does " + MATH):
        expect(tools.get_by_text(text, exact=True)).to_be_visible()
    for text in ("Sign in " + MATH, "Request from card $x$"):
        expect(card.get_by_text(text, exact=True)).to_be_visible()
    for out in (tools, card):
        expect(out.locator(MATH_ELEMENTS)).to_have_count(0)
        expect(out.locator("b, a[href='http://e.x']")).to_have_count(0)
    if ui == LAB:
        GALLERY.mkdir(parents=True, exist_ok=True)
        nb.page.locator(".jp-Notebook").screenshot(path=str(GALLERY / "literal-light.png"))


def test_server_text_is_literal_in_voila(open_voila: Any) -> None:
    # Voila 0.5 typesets nothing here (not even stock widgets or Markdown: its MathJax is not wired to the
    # widgets), so no control: this checks that the text, and the escaped-HTML descriptions, show literally.
    app: VoilaPage = open_voila([FORM_CELL])
    assert_literal(app.outputs.nth(0), None)
