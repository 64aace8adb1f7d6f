"""Voila: notebooks rendered as apps. Their cells run at page load; after that a person only uses widgets,
so a question from a server comes from a widget callback (`call_tool_background(..., output=out)`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from .harness import ROOT, VoilaPage

pytestmark = pytest.mark.browser

OpenVoila = Callable[..., VoilaPage]

HEADER = "Request from demo (calls itself “mcp-widgets-demo”)"

BUTTON_APP = """\
import ipywidgets as w
import mcp_widgets as mw
from mcp_widgets.demo import create_server

srv = await mw.connect(create_server(sign_in_port=0), name="demo")
out = w.Output()
button = w.Button(description="Check the weather")


def check(_button):
    # A widget callback must not block: start the call and let its form appear in `out`.
    srv.call_tool_background("weather", output=out)


button.on_click(check)
display(button, out)
"""


def put_caret(textarea: Any, after: str, *, select: str = "") -> None:
    """Click into the text area with the caret just after the first `after` (selecting `select` next)."""
    textarea.click()
    textarea.evaluate(
        """(el, [after, select]) => {
            const at = el.value.indexOf(after);
            if (at < 0) throw new Error("not in the text: " + after);
            const start = at + after.length;
            if (select && el.value.slice(start, start + select.length) !== select)
                throw new Error("not next in the text: " + select);
            el.setSelectionRange(start, start + select.length);
        }""",
        [after, select],
    )


def test_schema_playground_follows_the_typing(open_voila: OpenVoila) -> None:
    """notebooks/schema_playground.ipynb as a Voila app: typing into the schema changes the form, the problem
    list and the JSON each button would send, as the person types."""
    from playwright.sync_api import expect

    app = open_voila(copy_of=ROOT / "notebooks" / "schema_playground.ipynb")
    # The first playground of the notebook (`pg`): the output that holds its text area.
    pg = app.outputs.filter(has=app.page.locator("textarea")).first
    textarea = pg.locator("textarea")
    expect(pg.get_by_text("Schema problems (1):", exact=True)).to_be_visible()
    warning = pg.get_by_text("warning [property-type-missing] property 'contact'", exact=False)
    expect(warning).to_be_visible()
    expect(pg.get_by_label("Title")).to_be_visible()
    keyboard = app.page.keyboard

    # Give `contact` its type: half-typed text is not JSON (said so, the last preview stays); then the
    # warning goes and the field stays.
    put_caret(textarea, '"contact": {')
    keyboard.type(' "type"')
    not_json = pg.get_by_text("Not valid JSON", exact=False)
    expect(not_json).to_be_visible()
    expect(warning).to_be_visible()
    keyboard.type(': "string",')
    expect(pg.get_by_text("No problems found in this schema.", exact=True)).to_be_visible()
    expect(not_json).to_have_count(0)
    expect(warning).to_have_count(0)
    expect(pg.get_by_label("Contact email")).to_be_visible()
    expect(textarea).to_be_focused()  # the new form did not take the focus from the person typing

    # Rename a field: every keystroke is valid JSON, and the form follows each one.
    put_caret(textarea, '"title": "', select="Title")
    keyboard.type("Headline")
    expect(pg.get_by_label("Headline")).to_be_visible()
    expect(pg.get_by_label("Title")).to_have_count(0)

    # A type the spec forbids: an error in the list, and Accept would send nothing.
    put_caret(textarea, '"occurrences": {\n      "type": "', select="integer")
    keyboard.type("object")
    expect(pg.get_by_text("Schema problems (1):", exact=True)).to_be_visible()
    expect(pg.get_by_text("error [property-type] property 'occurrences'", exact=False)).to_be_visible()
    expect(pg.get_by_text("Accept → nothing (Accept is disabled: the schema has errors)")).to_be_visible()
    expect(pg.get_by_role("button", name="Accept")).to_be_disabled()
    expect(textarea).to_be_focused()


@pytest.mark.parametrize("served", ["extension", "standalone"])
def test_a_button_callback_asks_in_an_output_and_the_form_is_answered_there(
    open_voila: OpenVoila, served: str
) -> None:
    """A Voila app (served by the Jupyter server's extension, or by `voila app.ipynb`): a button starts
    `call_tool_background(..., output=out)`; the form shows in `out`, the person answers it, and the call's
    result shows there too."""
    from playwright.sync_api import expect

    app = open_voila([BUTTON_APP], standalone=served == "standalone")
    page = app.page
    page.get_by_role("button", name="Check the weather").click()
    expect(page.get_by_text(HEADER, exact=True)).to_be_visible()
    form = page.locator(".mcp-widgets-form")
    expect(form.get_by_text("Which city? Decline to get the weather for Paris.", exact=True)).to_be_visible()
    accept = form.get_by_role("button", name="Accept")
    expect(accept).to_be_disabled()
    form.get_by_label("City").press_sequentially("Kyoto")
    accept.click()
    expect(page.get_by_text(f"{HEADER}: accepted by the person")).to_have_count(1)
    expect(page.locator(".mcp-widgets-form, input")).to_have_count(0)
    result = page.get_by_text("tool 'weather' on 'demo': done", exact=False)
    expect(result.first).to_contain_text('"sky": ')  # the result's summary...
    expect(result.first).not_to_contain_text("Kyoto")  # ...quotes no answer it echoes (#18)


def test_a_question_asked_while_the_page_loads_is_declined_and_the_page_loads(open_voila: OpenVoila) -> None:
    """Voila runs the cells before it sends the page: no one can see a form then, so a question asked by a
    cell is declined as headless (after a short grace) and the app still loads, with the tool's fallback."""
    from playwright.sync_api import expect

    asks_at_load = "result = await srv.call_tool('weather')\nprint(result.structured_content['city'])\n"
    app = open_voila([BUTTON_APP, asks_at_load])
    page = app.page
    expect(page.get_by_text(f"{HEADER}: declined by policy 'headless'", exact=False)).to_have_count(1)
    expect(page.get_by_text("Paris", exact=True)).to_be_visible()
    expect(page.locator(".mcp-widgets-form")).to_have_count(0)
    expect(page.get_by_role("button", name="Check the weather")).to_be_visible()


PENDING_APP = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
import ipywidgets as w
import mcp_widgets as mw
from tests.servers.tasks2026 import build_server

server, ext = build_server(ttl_ms=600_000)
srv = await mw.connect(server, name="tasks")
out = w.Output()
button = w.Button(description="Ask for a name")
button.on_click(lambda _button: srv.call_tool_background("ask_names", output=out))
display(button, out)
"""


def test_the_open_questions_list_answers_a_question_asked_after_the_page_loaded(
    open_voila: OpenVoila,
) -> None:
    """`mw.pending()` in a Voila app: empty at load; a button's task asks a question, the list shows its line
    and its card, and the person answers it in the list: the call ends done and both views of the card end."""
    from playwright.sync_api import expect

    app = open_voila([PENDING_APP, "mw.pending()"])
    page = app.page
    listing = page.locator(".mcp-widgets-pending")
    expect(listing.get_by_text("No open questions", exact=True)).to_be_visible()
    page.get_by_role("button", name="Ask for a name").click()
    expect(listing.get_by_text("1 open question", exact=True)).to_be_visible()
    line = listing.locator(".mcp-widgets-pending-row").first.locator(".mcp-widgets-pending-line")
    expect(line).to_have_text(re.compile(r"^tasks · waited \d+ s · 9 min left$"))
    expect(listing.get_by_text("Name number 1?", exact=True)).to_be_visible()
    listing.get_by_label("Name").press_sequentially("Ada")
    listing.get_by_role("button", name="Accept").click()
    expect(listing.get_by_text("No open questions", exact=True)).to_be_visible()
    expect(page.get_by_text("tool 'ask_names' on 'tasks': done", exact=False).first).to_be_visible()
    expect(page.locator("input")).to_have_count(0)  # the card in the button's output ended too
