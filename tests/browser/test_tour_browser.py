"""One tour of the questions per Jupyter front end (issue 49), as a person goes through them with the demo
server: a form typed into and accepted, one declined, one cancelled, a URL card (its host and full address
as text, nothing opened before consent), a confirmation, `mw.preview(schema)`, and the history after them
(how each ended, none of the typed text). In JupyterLab and Notebook 7 the calls are awaited cells and the
notebook is then saved with widget state on: the typed text is nowhere in the file. In Voila the questions
come from buttons' callbacks (`call_tool_background(..., output=out)`). Light and dark in each; shots of
the live forms in `build/gallery/tour-*` (marimo has its own tour: test_marimo_browser.py)."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from .conftest import OpenNotebook
from .gallery import GALLERY, layout_problems, shoot
from .harness import DARK_THEME, LAB, LIGHT_THEME, NOTEBOOK, UI_MS, NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CANARY = "Kyoto-tour-7f3a"
"""The city typed into the first form: it must reach the server and nothing else."""
HEADER = "Request from demo (calls itself “mcp-widgets-demo”)"
ASK_CITY = "Which city? Decline to get the weather for Paris."
ASK_DELETE = "Move 3 files to the trash: cache.tmp, draft.tmp, scratch.tmp?"
SCHEMA = {
    "type": "object",
    "properties": {"sure": {"type": "boolean", "title": "Yes, send the report", "default": False}},
    "required": ["sure"],
}
# How the history says each question ended, oldest first.
ENDINGS = [
    ("weather", "accepted"),
    ("weather", "declined"),
    ("weather", "cancelled"),
    ("sign_in", "declined"),
    ("delete_files", "accepted"),
]

CONNECT = """\
import mcp_widgets as mw
from mcp_widgets.demo import create_server
srv = await mw.connect(create_server(sign_in_port=0), name="demo", mode="legacy")
"""
# What a cell prints of a weather result: never the city typed (it would be saved with the notebook).
WEATHER = """\
r = await srv.call_tool("weather")
print(r.structured_content["answer"], r.structured_content["fallback"], len(r.structured_content["city"]))
"""
CELLS = [
    CONNECT,
    WEATHER,
    WEATHER,
    WEATHER,
    'r = await srv.call_tool("sign_in")\nprint(r.structured_content)',
    'r = await srv.call_tool("delete_files")\nprint(r.structured_content)',
    f"mw.preview({SCHEMA!r}, message='Send the report now?')",
    "mw.history()",
]
ACCEPTED, DECLINED, CANCELLED, URL_CARD, CONFIRM, PREVIEW, HISTORY = range(1, 8)


class Requests:
    """Every request any page of the context makes (to see that nothing reached the sign-in page)."""

    def __init__(self, context: Any) -> None:
        self.urls: list[str] = []
        context.on("request", lambda request: self.urls.append(request.url))

    def to(self, origin: str) -> list[str]:
        return [url for url in self.urls if url.startswith(origin)]


def question(out: Any, message: str) -> Any:
    """The live question card in `out` asking `message`, once visible."""
    from playwright.sync_api import expect

    form = out.locator(".mcp-widgets-form").filter(has_text=message)
    expect(form.get_by_text(HEADER, exact=True)).to_be_visible()
    expect(form.get_by_text(message, exact=True)).to_be_visible()
    return form


def ended(out: Any, ending: str) -> None:
    """The question in `out` is one line of text now (who asked, how it ended), nothing left to use."""
    from playwright.sync_api import expect

    expect(out.get_by_text(f"{HEADER}: {ending}", exact=False)).to_have_count(1)
    expect(out.locator("input, select, textarea, button")).to_have_count(0)


def answer_city(out: Any) -> None:
    from playwright.sync_api import expect

    form = question(out, ASK_CITY)
    accept = form.get_by_role("button", name="Accept")
    expect(accept).to_be_disabled()  # City is required
    form.get_by_label("City").press_sequentially(CANARY)
    expect(accept).to_be_enabled()
    accept.click()
    ended(out, "accepted by the person")


def check_url_card(out: Any, requests: Requests) -> None:
    """The card says the host and the full address as text, has no link, and nothing reached the page;
    then it is declined."""
    from playwright.sync_api import expect

    expect(
        out.get_by_text("Sign in to the demo on its local page, then come back.", exact=True)
    ).to_be_visible()
    address = out.get_by_text("Full address: ", exact=False)
    expect(address).to_be_visible()
    url = address.inner_text().removeprefix("Full address: ").strip()
    parts = urlsplit(url)
    assert parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.path, url
    expect(out.get_by_text(f"Opens a page on: {parts.hostname}", exact=True)).to_be_visible()
    expect(out.get_by_role("button", name="Open page")).to_be_enabled()
    expect(out.locator("a")).to_have_count(0)  # no live link before consent
    assert requests.to(f"{parts.scheme}://{parts.netloc}") == []
    assert len(out.page.context.pages) == 1
    out.get_by_role("button", name="Decline").click()
    expect(out.get_by_text("declined by the person", exact=False)).to_have_count(1)
    expect(out.locator("a, button")).to_have_count(0)
    assert requests.to(f"{parts.scheme}://{parts.netloc}") == [] and len(out.page.context.pages) == 1


def check_preview(out: Any) -> None:
    """The preview of a one-checkbox confirmation: no problems; the JSON Accept would send follows the box."""
    from playwright.sync_api import expect

    expect(out.get_by_text("Send the report now?", exact=True)).to_be_visible()
    expect(out.get_by_text("No problems found in this schema.", exact=True)).to_be_visible()
    box = out.get_by_label("Yes, send the report")
    expect(box).not_to_be_checked()
    accept_line = out.get_by_text("Accept → ", exact=False)
    expect(accept_line).to_contain_text('"sure": false')
    box.check()
    expect(accept_line).to_contain_text('"sure": true')
    box.uncheck()
    expect(accept_line).to_contain_text('"sure": false')


def check_history(out: Any) -> None:
    """One row per question, newest first, each with its call and how it ended; no value typed."""
    from playwright.sync_api import expect

    rows = out.get_by_role("row").filter(has_text="demo")
    expect(rows).to_have_count(len(ENDINGS))
    for row, (call, ending) in zip(rows.all(), reversed(ENDINGS), strict=True):
        expect(row).to_contain_text(call)
        expect(row).to_contain_text(ending)
    expect(rows.filter(has_text="URL: 127.0.0.1")).to_have_count(1)  # the sign-in: its mode and host
    assert CANARY not in out.inner_text()


def tour_notebook(nb: NotebookPage) -> None:
    """The tour in a notebook of CELLS: light, then the confirmation, preview and history in dark (those two
    in light again), and a save with widget state that keeps nothing typed."""
    from playwright.sync_api import expect

    requests = Requests(nb.page.context)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()

    nb.run(ACCEPTED)
    expect(nb.prompt(ACCEPTED)).to_have_text("[*]:")  # the cell waits for the person
    question(nb.output(ACCEPTED), ASK_CITY)
    shoot(nb, nb.output(ACCEPTED), f"tour-{nb.ui}-form")
    answer_city(nb.output(ACCEPTED))
    nb.wait_done(ACCEPTED)
    expect(nb.stdout(ACCEPTED)).to_have_text(f"accept False {len(CANARY)}\n")

    for index, button, ending, printed in (
        (DECLINED, "Decline", "declined by the person", "decline True 5\n"),
        (CANCELLED, "Cancel", "cancelled by the person", "cancel True 5\n"),
    ):
        nb.run(index)
        question(nb.output(index), ASK_CITY).get_by_role("button", name=button).click()
        ended(nb.output(index), ending)
        nb.wait_done(index)
        expect(nb.stdout(index)).to_have_text(printed)  # the tool went on with Paris

    nb.run(URL_CARD)
    expect(nb.output(URL_CARD).get_by_role("button", name="Open page")).to_be_visible()
    shoot(nb, nb.output(URL_CARD), f"tour-{nb.ui}-url")
    check_url_card(nb.output(URL_CARD), requests)
    nb.wait_done(URL_CARD)
    expect(nb.stdout(URL_CARD)).to_have_text("{'done': False, 'action': 'decline'}\n")

    nb.set_theme(DARK_THEME)
    nb.run(CONFIRM)
    confirm = question(nb.output(CONFIRM), ASK_DELETE)
    expect(confirm.locator("input, select, textarea")).to_have_count(0)  # a confirmation: no field
    shoot(nb, nb.output(CONFIRM), f"tour-{nb.ui}-confirm")
    confirm.get_by_role("button", name="Accept").click()
    ended(nb.output(CONFIRM), "accepted by the person")
    nb.wait_done(CONFIRM)
    expect(nb.stdout(CONFIRM)).to_contain_text("'deleted': ['cache.tmp', 'draft.tmp', 'scratch.tmp']")

    nb.run(PREVIEW)
    nb.wait_done(PREVIEW)
    check_preview(nb.output(PREVIEW))
    nb.run(HISTORY)
    nb.wait_done(HISTORY)
    check_history(nb.output(HISTORY))
    for theme in (DARK_THEME, LIGHT_THEME):
        nb.set_theme(theme)
        shoot(nb, nb.output(PREVIEW), f"tour-{nb.ui}-preview")
        shoot(nb, nb.output(HISTORY), f"tour-{nb.ui}-history")
    for index in range(1, len(CELLS)):
        assert nb.stderr(index).count() == 0, (index, nb.stderr(index).all_inner_texts())

    nb.run_command("docmanager:save")  # resolves once the file is written
    saved = (nb.server.root / nb.path).read_text()
    state = json.loads(saved)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert len(state) > 10  # the preview's and the history's models were saved...
    assert CANARY not in saved  # ...and nothing typed, anywhere in the file


@pytest.mark.usefixtures("saving_widget_state")
def test_the_tour_in_jupyterlab(open_notebook: OpenNotebook) -> None:
    started = time.perf_counter()
    tour_notebook(open_notebook(CELLS, ui=LAB))
    print(f"[tour in JupyterLab {time.perf_counter() - started:.1f} s]", end=" ")


@pytest.mark.usefixtures("saving_widget_state")
def test_the_tour_in_notebook7(open_notebook: OpenNotebook) -> None:
    started = time.perf_counter()
    tour_notebook(open_notebook(CELLS, ui=NOTEBOOK))
    print(f"[tour in Notebook 7 {time.perf_counter() - started:.1f} s]", end=" ")


# Voila: the cells ran before the page was sent; a person uses buttons, each asking into an output of its own.
VOILA_APP = f"""\
import ipywidgets as w
import mcp_widgets as mw
from mcp_widgets.demo import create_server

srv = await mw.connect(create_server(sign_in_port=0), name="demo", mode="legacy")
STEPS = [("Weather 1", "weather"), ("Weather 2", "weather"), ("Weather 3", "weather"),
         ("Sign in", "sign_in"), ("Delete temporary files", "delete_files")]


def asker(tool, out):
    def ask(_button):
        # A widget callback must not block: start the call, its question and result appear in `out`.
        srv.call_tool_background(tool, output=out)
    return ask


for label, tool in STEPS:
    button, out = w.Button(description=label), w.Output()
    button.on_click(asker(tool, out))
    display(w.VBox([button, out], layout=w.Layout(border="1px solid transparent")))

history_out = w.Output()


def show_history(_button):
    with history_out:
        display(mw.history())


history_button = w.Button(description="Show the history")
history_button.on_click(show_history)
display(mw.preview({SCHEMA!r}, message="Send the report now?"), history_button, history_out)
"""


def snap(locator: Any, name: str) -> None:
    """Check the layout of `locator` and save it as `build/gallery/NAME.png` (Voila has no theme name)."""
    assert layout_problems(locator) == [], name
    GALLERY.mkdir(parents=True, exist_ok=True)
    locator.page.mouse.move(0, 0)
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(GALLERY / f"{name}.png"), animations="disabled")


def step(page: Any, label: str) -> Any:
    """Press the Voila app's button `label`; the output under it, where its call asks and answers."""
    box = page.locator(".widget-vbox").filter(has=page.get_by_role("button", name=label, exact=True))
    box.get_by_role("button", name=label, exact=True).click()
    return box.locator(".widget-output").first


def test_the_tour_in_voila(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    started = time.perf_counter()
    app = open_notebook.voila([VOILA_APP])
    page = app.page
    requests = Requests(page.context)

    out = step(page, "Weather 1")
    answer_city(out)
    result = out.get_by_text("tool 'weather' on 'demo': done", exact=False).first
    expect(result).to_contain_text('"answer": "accept"')  # the result's summary...
    expect(result).not_to_contain_text(CANARY)  # ...quotes no answer it echoes
    for label, button, ending in (("Weather 2", "Decline", "declined"), ("Weather 3", "Cancel", "cancelled")):
        out = step(page, label)
        question(out, ASK_CITY).get_by_role("button", name=button).click()
        ended(out, f"{ending} by the person")
        expect(out.get_by_text("tool 'weather' on 'demo': done", exact=False).first).to_contain_text(
            '"city": "Paris"'
        )
    out = step(page, "Sign in")
    check_url_card(out, requests)
    out = step(page, "Delete temporary files")
    confirm = question(out, ASK_DELETE)
    expect(confirm.locator("input, select, textarea")).to_have_count(0)
    confirm.get_by_role("button", name="Accept").click()
    ended(out, "accepted by the person")
    expect(out.get_by_text("tool 'delete_files' on 'demo': done", exact=False).first).to_contain_text(
        "scratch.tmp"
    )
    preview = page.locator(".jp-OutputArea-output").filter(has_text="No problems found in this schema.").first
    check_preview(preview)
    page.get_by_role("button", name="Show the history").click()
    history = page.locator(".widget-output").filter(has=page.get_by_role("table")).first
    check_history(history)
    assert CANARY not in page.inner_text("body")
    snap(history, "tour-voila-history-light")

    # Dark: Voila takes its theme from the page's address; a new page is a new run of the app.
    dark = open_notebook.voila([VOILA_APP], suffix="-dark", theme="dark")
    assert dark.page.evaluate("document.body.dataset.jpThemeLight") == "false"
    out = step(dark.page, "Weather 1")
    form = question(out, ASK_CITY)
    preview = dark.page.locator(".jp-OutputArea-output").filter(has_text="No problems found in this schema.")
    check_preview(preview.first)
    snap(out, "tour-voila-form-dark")
    snap(preview.first, "tour-voila-preview-dark")
    form.get_by_role("button", name="Cancel").click()
    ended(out, "cancelled by the person")
    print(f"[tour in Voila {time.perf_counter() - started:.1f} s]", end=" ")
