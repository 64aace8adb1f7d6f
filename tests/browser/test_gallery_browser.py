"""Every card of ours in JupyterLab, light and dark, as a person sees it: a screenshot of each in
`build/gallery/` (never committed), and the same layout check for all: nothing overflows its box, no button
label is cut. Also what only a browser shows: an error is marked on its field (aria-invalid, a red
border), a multi-select of a few choices is checkboxes, and Escape answers a form without fields at once
(once the person tabbed in it)."""

from __future__ import annotations

import pytest

from .conftest import OpenNotebook
from .gallery import layout_problems, shoot_in_both_themes
from .harness import UI_MS
from .test_results_browser import SERVER as PICTURES

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

SETUP = """\
import sys
import mcp_widgets as mw
from mcp_widgets.core.history import History
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.demo import create_server
from mcp_widgets.widgets import ElicitationForm, HistoryPanel, UrlCard
from mcp_widgets.widgets._call_panel import CallPanel
KINDS = {"type": "object", "required": ["name", "email", "when", "size", "extras", "agree"], "properties": {
    "name": {"type": "string", "title": "Name", "description": "As on your passport", "minLength": 2},
    "email": {"type": "string", "format": "email", "title": "Email"},
    "site": {"type": "string", "format": "uri", "title": "Website"},
    "handle": {"type": "string", "title": "Handle", "pattern": "^[a-z][a-z0-9_]*$",
               "description": "Lower-case letters, digits and _, starting with a letter."},
    "age": {"type": "integer", "title": "Age", "minimum": 18, "maximum": 120},
    "born": {"type": "string", "format": "date", "title": "Born"},
    "when": {"type": "string", "format": "date-time", "title": "Start"},
    "size": {"type": "string", "title": "Room", "oneOf": [{"const": "s", "title": "Single"},
             {"const": "d", "title": "Double"}, {"const": "f", "title": "Family suite with a view"}]},
    "city": {"type": "string", "title": "City",
             "enum": ["Oslo", "Bergen", "Tromsø", "Bodø", "Ålesund", "Moss"]},
    "extras": {"type": "array", "title": "Extras", "items": {"anyOf": [{"const": "b", "title": "Breakfast"},
               {"const": "p", "title": "Parking"}, {"const": "l", "title": "Late check-out"}]},
               "minItems": 1, "maxItems": 2, "default": ["b"]},
    "many": {"type": "array", "title": "Interests", "items": {"enum": [f"topic {i}" for i in range(10)]},
             "default": ["topic 1", "topic 4"]},
    "agree": {"type": "boolean", "title": "I accept the house rules"},
}}
srv = await mw.connect(create_server(sign_in_port=0), name="demo (2025-11-25)")
stdio = await mw.connect([sys.executable, "-m", "mcp_widgets.demo"], name="demo")
"""
FORM = 'ElicitationForm("Tell us about your stay.", KINDS, server="demo", declared_name="mcp-widgets-demo")'
ERRORS = """\
bad = ElicitationForm("The same form, filled in wrongly.", KINDS, server="demo")
bad.fill(name="A", email="not an address", site="nowhere", handle="9lives", age="7",
         extras=["b", "p", "l"])
bad
"""
CONFIRM = 'ElicitationForm("Delete 3 files for good?", {"type": "object", "properties": {}}, server="demo")'
URL = 'UrlCard("Sign in to your account to continue.", "https://example.com/login?next=%2F", server="demo")'
TOOL = 'srv.form("search_files")'
TOOL_RESULT = """\
weather = srv.form("weather")
weather.fill(city="Oslo")
weather.run()
await weather.wait()
weather
"""
PANEL = """\
panel = CallPanel(status="tool 'long_task' on 'demo': running")
panel.update((1, 4, "step 1 of 4"), ["[info] long_task: starting", "[info] long_task: step 1 done"])
panel.shown
"""
HISTORY = """\
h = History()
h.begin_request(server="demo (2025-11-25)", declared_name="mcp-widgets-demo", mode="form",
                message="Which city?", source=("tool", "weather"), fields=[("city", "City", True)],
                outcome=Outcome(Action.ACCEPT, Reason.PERSON))
h.begin_request(server="demo", mode="form", message="Delete 3 files for good?",
                source=("tool", "delete_files"),
                outcome=Outcome(Action.DECLINE, Reason.HANDLER, by="auto_no"))
h.begin_request(server="auth", mode="url", url_host="example.com", message="Sign in")
HistoryPanel(h)
"""
PLAYGROUND = """\
mw.playground({"type": "object", "properties": {
    "title": {"type": "string", "title": "Title"},
    "deep": {"type": "object", "title": "Nested"},
    "count": {"type": "integer", "title": "Count", "minimum": 0}}})
"""
LISTING = "srv.tools"
REPR = "stdio"

CARDS = {
    "form": FORM,
    "errors": ERRORS,
    "confirm": CONFIRM,
    "url-card": URL,
    "tool-form": TOOL,
    "tool-result": TOOL_RESULT,
    "call-panel": PANEL,
    "history": HISTORY,
    "playground": PLAYGROUND,
    "tools-table": LISTING,
    "server-repr": REPR,
    "result-image": PICTURES + "await srv.call_tool('picture')",
}


def test_the_gallery_light_and_dark(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    names = list(CARDS)
    nb = open_notebook([SETUP, *CARDS.values(), CONFIRM])
    for index in range(len(names) + 2):
        nb.run(index)
        nb.wait_done(index, timeout=UI_MS * 4)
        assert nb.stderr(index).count() == 0, (index, nb.stderr(index).all_inner_texts())
    # Escape answers a confirmation (no field to type into) at once once the person has moved into it
    # (focus the form took by itself is handed back to the notebook instead: docs/keyboard.md).
    last = nb.cell(len(names) + 1).locator(".jp-Cell-outputArea")
    expect(last.get_by_role("button", name="Accept")).to_be_visible()
    nb.page.keyboard.press("Tab")  # the person moves within the form: now it is theirs
    nb.page.keyboard.press("Escape")
    expect(last.get_by_text("Request from demo: cancelled by the person", exact=True)).to_be_visible()
    # The cell's own output area (a tool form's result area is an output area too).
    out = {name: nb.cell(i + 1).locator(".jp-Cell-outputArea") for i, name in enumerate(names)}

    # An error is unmistakable: its own line, marked on the field for eyes and for screen readers.
    errors = out["errors"]
    expect(errors.locator(".mcp-widgets-error").first).to_be_visible()
    expect(errors.get_by_text("⚠ Error: must be at least 2 characters", exact=True)).to_be_visible()
    pattern = "⚠ Error: does not have the form this field asks for"
    expect(errors.get_by_text(pattern, exact=True)).to_be_visible()
    expect(errors.get_by_text("^[a-z]", exact=False)).to_have_count(0)  # no raw regex
    name = errors.get_by_label("Name")
    expect(name).to_have_attribute("aria-invalid", "true")
    red = name.evaluate("(el) => getComputedStyle(el).boxShadow")
    assert "inset" in red, red
    expect(out["form"].get_by_label("Name")).not_to_have_attribute("aria-invalid", "true")
    # A few choices are checkboxes, the default ticked and the limits in sight; many are still a list.
    extras = out["form"].get_by_role("group", name="Extras *")
    expect(extras.get_by_role("checkbox", name="Breakfast")).to_be_checked()
    expect(extras.get_by_role("checkbox", name="Parking")).not_to_be_checked()
    expect(out["form"].get_by_text("Pick 1 or 2.", exact=True)).to_be_visible()
    expect(out["form"].locator("select[multiple]")).to_have_count(1)
    expect(out["form"].get_by_text("I accept the house rules *")).to_have_count(0)
    # Listings read from the left.
    cell = out["tools-table"].locator("td").nth(2)
    assert cell.evaluate("(el) => getComputedStyle(el).textAlign") == "left"

    shoot_in_both_themes(nb, {name: out[name] for name in names})

    # The layout check finds what it is for: text wider than its box, a button whose label is cut.
    probe = out["confirm"].locator(".mcp-widgets-form")
    probe.evaluate(
        """(el) => {
          const wide = document.createElement("div");
          wide.style.cssText = "width: 50px; white-space: nowrap";
          wide.textContent = "much too long for fifty pixels";
          const button = document.createElement("button");
          button.style.cssText = "width: 40px; overflow: hidden; white-space: nowrap";
          button.textContent = "A label far too long";
          el.append(wide, button);
        }"""
    )
    found = layout_problems(probe)
    assert any(p.startswith("overflows: div") for p in found), found
    assert "button label cut: A label far too long" in found, found
