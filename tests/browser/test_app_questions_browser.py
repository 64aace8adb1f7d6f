"""A server's question shown by its own app (app-rendered elicitation) in a real JupyterLab: answered in the
app, refused when the answer does not fit, declined and cancelled with the host's buttons, answered in the
plain form instead, and the plain form on every failure."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_widgets.widgets._form import KEYS_HINT_APP

from .harness import DARK_THEME, LAB, LIGHT_THEME, UI_MS, NotebookPage, VoilaPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]
ROOT = Path(__file__).resolve().parents[2]

CONNECT = f"""\
import sys, json
sys.path.insert(0, {str(ROOT)!r})
import mcp_widgets as mw
import mcp_widgets.client.apps.questions as aq
from tests.servers.app_question import PICKER, SCHEMA, SILENT, WRONG_TYPE
aq.QUESTION_START = 3  # the silent app's fallback comes sooner
RAW = {str(ROOT / "tests" / "servers" / "rawrpc.py")!r}
srv = await mw.connect([sys.executable, RAW, "--apps"], name="picker")

async def ask(uri):
    question = {{"op": "elicit", "id": "q", "message": "Which colour, and how dark?", "schema": SCHEMA,
                "meta": {{"ui": {{"resourceUri": uri}}}}}}
    ops = [question, {{"op": "await", "id": "q"}}, {{"op": "report"}}]
    result = await srv.call_tool("play", {{"ops": ops}})
    print(result.content[0].text)
"""
HEADER = "Request from picker (calls itself “raw”)"
APPS = {
    "pick_color": "PICKER",
    "pick_missing": "'ui://question/nowhere.html'",
    "pick_silent": "SILENT",
    "pick_wrong_type": "WRONG_TYPE",
}


def ask(tool: str) -> str:
    return f"await ask({APPS[tool]})"


def opened(open_notebook: OpenNotebook, *tools: str, ui: str = LAB) -> NotebookPage:
    """A notebook connected to the server (cell 0), its cells 1, 2, ... asking with `tools` in turn: the
    first one run here, each next one by `ask_next` (one kernel and one server for several questions, as a
    person answers them)."""
    nb = open_notebook([CONNECT, *(ask(tool) for tool in tools)], ui=ui)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    ask_next(nb, 1)
    return nb


def ask_next(nb: NotebookPage, cell: int) -> None:
    from playwright.sync_api import expect

    nb.run(cell)
    expect(nb.output(cell).get_by_text(HEADER, exact=True)).to_be_visible(timeout=UI_MS * 2)


def answered(nb: NotebookPage, cell: int = 1) -> dict[str, Any]:
    """What the server received for the question of `cell`: its action and, when accepted, its content."""
    nb.wait_done(cell, timeout=UI_MS * 2)
    report = json.loads(nb.stdout(cell).inner_text().strip())
    (action,) = report["actions"]
    return {"action": action, **({"content": report["answers"][0]} if report["answers"] else {})}


def picker(nb: NotebookPage, cell: int = 1) -> Any:
    from playwright.sync_api import expect

    app = nb.output(cell).frame_locator("iframe.mcp-widgets-app-frame").frame_locator("iframe")
    expect(app.locator("#asked")).to_have_text("Asked: Which colour, and how dark?", timeout=UI_MS * 2)
    return app


# JupyterLab only: Notebook 7 draws with the same widget manager and Lumino (its app runs in
# test_apps_browser.py, its questions in the tour); its copy of this test was among CI's longest.
@pytest.mark.parametrize("ui", [LAB])
def test_answered_in_the_app(open_notebook: OpenNotebook, screenshots: Path, ui: str) -> None:
    from playwright.sync_api import expect

    nb = opened(open_notebook, "pick_color", ui=ui)
    out = nb.output(1)
    app = picker(nb)
    # The card is ours: the header, the message, Decline, Cancel and the switch; no fields, no Accept.
    expect(out.get_by_text("Which colour, and how dark?", exact=True)).to_be_visible()
    expect(out.get_by_role("button", name="Use the plain form")).to_be_visible()
    expect(out.get_by_role("button", name="Accept")).to_have_count(0)
    expect(out.get_by_role("button", name="Decline")).to_be_visible()
    expect(out.get_by_text(KEYS_HINT_APP, exact=True)).to_be_visible()  # no Enter that accepts
    # Nothing between the app and the buttons: the app view's lines stay hidden while empty (placed as a
    # bare element, its four empty lines once showed as 120 px of blank rows).
    # The layouts come a moment after the view (the page makes each one's view in turn): measured until then.
    gap = """(root) => {
        const frame = root.querySelector("iframe.mcp-widgets-app-frame");
        const buttons = root.querySelector(".mcp-widgets-buttons");
        return frame && buttons
            ? buttons.getBoundingClientRect().top - frame.getBoundingClientRect().bottom : 1e9;
    }"""
    deadline = time.monotonic() + UI_MS / 1000
    while (measured := out.first.evaluate(gap)) >= 24 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert measured < 24, measured
    if ui == LAB:
        nb.page.screenshot(path=str(screenshots / "app-question-light.png"))
        nb.set_theme(DARK_THEME)
        nb.page.screenshot(path=str(screenshots / "app-question-dark.png"))
        nb.set_theme(LIGHT_THEME)
    app.locator("#red").click()
    assert answered(nb) == {"action": "accept", "content": {"color": "red", "shade": 3}}
    expect(out.get_by_text(f"{HEADER}: accepted", exact=False)).to_be_visible()
    expect(out.locator("iframe.mcp-widgets-app-frame")).to_have_count(0)


def test_an_answer_that_does_not_fit_is_not_sent(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = opened(open_notebook, "pick_color")
    out = nb.output(1)
    picker(nb).locator("#bad").click()
    expect(
        out.get_by_text("Not sent: the app's answer has a value no field of the question takes", exact=False)
    ).to_be_visible()
    expect(out.get_by_role("button", name="Accept")).to_be_visible()
    # The person fixes it in the plain form.
    out.get_by_role("radio", name="blue").check()
    out.get_by_role("button", name="Accept").click()
    got = answered(nb)
    assert got["action"] == "accept" and got["content"]["color"] == "blue"
    assert got["content"].get("shade", 1) <= 9  # the app's 12 never reached the server


def test_declined_and_cancelled(open_notebook: OpenNotebook) -> None:
    """Declined in the app, then with the host's Decline, then cancelled with its Cancel: three questions of
    one connection in turn, each ending as asked (and the next one's app still shown)."""
    hows = {"app": "decline", "host decline": "decline", "host cancel": "cancel"}
    nb = opened(open_notebook, *["pick_color"] * len(hows))
    for cell, (how, expected) in enumerate(hows.items(), start=1):
        if cell > 1:
            ask_next(nb, cell)
        out = nb.output(cell)
        app = picker(nb, cell)
        if how == "app":
            app.locator("#no").click()
        else:
            out.get_by_role("button", name="Decline" if how == "host decline" else "Cancel").click()
        assert answered(nb, cell)["action"] == expected, how


def test_the_plain_form_on_request(open_notebook: OpenNotebook) -> None:
    nb = opened(open_notebook, "pick_color")
    out = nb.output(1)
    picker(nb)
    out.get_by_role("button", name="Use the plain form").click()
    out.get_by_role("radio", name="red").check()
    out.get_by_role("button", name="Accept").click()
    assert answered(nb) == {"action": "accept", "content": {"color": "red"}}


FAILURES = {  # the app's failure: what the line under the buttons says
    "pick_missing": "could not be shown",
    "pick_silent": "did not start",
    "pick_wrong_type": "is of type 'text/html', not 'text/html;profile=mcp-app'",
}


def test_the_plain_form_when_the_app_fails(open_notebook: OpenNotebook) -> None:
    """Each failure in turn, in one connection: the line under the buttons says why, no app frame is left,
    and the plain form answers."""
    from playwright.sync_api import expect

    nb = opened(open_notebook, *FAILURES)
    for cell, (tool, why) in enumerate(FAILURES.items(), start=1):
        if cell > 1:
            ask_next(nb, cell)
        out = nb.output(cell)
        expect(out.locator(".mcp-widgets-hint").get_by_text(why, exact=False)).to_be_visible(
            timeout=UI_MS * 2
        )
        expect(out.locator("iframe.mcp-widgets-app-frame")).to_have_count(0)
        out.get_by_role("radio", name="blue").check()
        out.get_by_role("button", name="Accept").click()
        assert answered(nb, cell) == {"action": "accept", "content": {"color": "blue"}}, tool


VOILA_PICK = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
import ipywidgets as w
import mcp_widgets as mw
from tests.servers.app_question import PICKER, SCHEMA
RAW = {str(ROOT / "tests" / "servers" / "rawrpc.py")!r}
srv = await mw.connect([sys.executable, RAW, "--apps"], name="picker")
question = {{"op": "elicit", "id": "q", "message": "Which colour, and how dark?", "schema": SCHEMA,
            "meta": {{"ui": {{"resourceUri": PICKER}}}}}}
ops = [question, {{"op": "await", "id": "q"}}, {{"op": "report"}}]
out = w.Output()
button = w.Button(description="Pick a colour")
button.on_click(lambda _: srv.call_tool_background("play", {{"ops": ops}}, output=out))
display(button, out)
"""


def test_answered_in_the_app_in_voila(open_voila: Callable[..., VoilaPage]) -> None:
    """Voila (the Jupyter server's extension; `voila app.ipynb` serves the same page, and
    test_voila_browser.py runs questions both ways): a button's callback calls the tool with an `output=`;
    its question shows in the server's app in that output, the app answers it, and the call's result (what
    the server was answered, its typed text redacted) shows there."""
    from playwright.sync_api import expect

    voila = open_voila([VOILA_PICK])
    page = voila.page
    page.get_by_role("button", name="Pick a colour").click()
    expect(page.get_by_text(HEADER, exact=True)).to_be_visible(timeout=UI_MS * 2)
    app = page.frame_locator("iframe.mcp-widgets-app-frame").frame_locator("iframe")
    expect(app.locator("#asked")).to_have_text("Asked: Which colour, and how dark?", timeout=UI_MS * 2)
    expect(page.get_by_role("button", name="Accept")).to_have_count(0)
    app.locator("#red").click()
    expect(page.get_by_text(f"{HEADER}: accepted", exact=False)).to_be_visible(timeout=UI_MS * 2)
    expect(page.locator("iframe.mcp-widgets-app-frame")).to_have_count(0)
    done = page.get_by_text("tool 'play' on 'picker': done", exact=False).first
    expect(done).to_contain_text('"actions": ["accept"]', timeout=UI_MS * 2)
    expect(done).to_contain_text('"shade": 3')
