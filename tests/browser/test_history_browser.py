"""The history table at a glance (issue 32): 50 questions at 1280 px, one line each, every column in sight
("Took" included), the fields as one line with a count that opens to the full list, and what a server
calls itself said once. JupyterLab light and dark, and Voila; screenshots in `build/gallery/`, and
docs/history.md's (`docs/screenshots/history-panel.png`). And, saved with widget state on: hostile server
text stays text, a row updates live when its question is answered, and a save keeps no value typed
(`build/gallery/history-hostile.png`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import OpenNotebook
from .gallery import GALLERY, shoot
from .harness import DARK_THEME, LIGHT_THEME, UI_MS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CANARY = "canary-hist-5e1d"
PWN = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
HOSTILE_SETUP = f"""
from mcp_widgets.core.history import History
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, HistoryPanel
H = {PWN!r}
history = History()
history.begin_request(
    server=H, declared_name=H, mode="form", message=H, source=("tool", H), fields=[(H, H, True)],
    outcome=Outcome(Action.DECLINE, Reason.HANDLER, by=H, note=H),
)
history.begin_request(server="auth", mode="url", url_host=H, message="Log in")
city = {{"city": {{"type": "string", "title": "City"}}}}
form = ElicitationForm(
    "Which city?", {{"type": "object", "properties": city, "required": ["city"]}}, server="shop"
)
asked = history.begin(
    server="shop", mode="form", message=form.message, source=("tool", "where"), fields=form.spec.fields
)
form.add_done_callback(lambda done: history.finish(asked.id, done.outcome))
panel = HistoryPanel(history)
"""

FIFTY = """\
import time
from mcp_widgets.core.history import History
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import HistoryPanel

TEN = [("user", "User name", True), ("email", "Email", True), ("age", "Age", False),
       ("born", "Born", False), ("city", "City", True), ("room", "Room", False), ("extras", "Extras", False),
       ("site", "Website", False), ("handle", "Handle", False), ("agree", "I accept the house rules", True)]
ENDS = [Outcome(Action.ACCEPT, Reason.PERSON), Outcome(Action.DECLINE, Reason.PERSON),
        Outcome(Action.CANCEL, Reason.PERSON), Outcome(Action.DECLINE, Reason.HANDLER, by="auto_no"),
        Outcome(Action.CANCEL, Reason.TIMEOUT), Outcome(Action.ACCEPT, Reason.POLICY, by="accept_defaults")]
SERVERS = [("demo (2025-11-25)", "mcp-widgets-demo"), ("shop", None), ("travel-agent", "trips")]
MESSAGES = ["Which city?", "Tell us about your stay: who you are, where you are going, and what the room "
            "should have. We keep nothing you do not send.", "Delete 3 files for good?"]
h = History()
for i in range(50):
    started = time.monotonic() - (50 - i) * 7.3
    end = None if i == 49 else ENDS[i % 6]
    if i % 10 == 7:
        h.begin_request(server="auth", mode="url", url_host="login.example.com", started=started,
                        message="Sign in to continue.", source=("tool", "login"), outcome=end)
        continue
    server, declared = SERVERS[i % 3]
    h.begin_request(server=server, declared_name=declared, mode="form", message=MESSAGES[i % 3],
                    source=("tool", ["book_room", "weather", "delete_files"][i % 3]), started=started,
                    fields=TEN[: 1 + (i * 3) % 10], outcome=end)
panel = HistoryPanel(h, page_size=50)
"""

# Per row: its height against one line of text; the table against its scroll box; Took in sight.
MEASURE = """(root) => {
  const table = root.querySelector("table.mcp-widgets-history");
  const scroll = root.querySelector(".mcp-widgets-history-scroll");
  const line = parseFloat(getComputedStyle(table).lineHeight);
  const rows = [...table.querySelectorAll("tbody tr")].map((tr) => tr.getBoundingClientRect().height);
  const took = table.querySelector("thead th:last-child").getBoundingClientRect();
  const box = scroll.getBoundingClientRect();
  const columns = [...table.querySelectorAll("thead th")].map((th) => th.className + " " +
    Math.round(th.getBoundingClientRect().width)).join(", ");
  return {columns, line, tallest: Math.max(...rows), count: rows.length, scrollWidth: scroll.scrollWidth,
          clientWidth: scroll.clientWidth, tookRight: took.right, boxRight: box.right, tookWidth: took.width};
}"""


def check_at_a_glance(output: Any) -> dict[str, Any]:
    """One line per question, every column in sight, "calls itself" once, the fields open on a click."""
    from playwright.sync_api import expect

    table = output.locator("table.mcp-widgets-history")
    expect(table.locator("tbody tr")).to_have_count(50)
    found = output.evaluate(MEASURE)
    assert found["tallest"] <= found["line"] * 1.3 + 6, found  # one line each (and its padding)
    assert found["scrollWidth"] <= found["clientWidth"] + 1, found  # no sideways scrolling...
    assert found["tookWidth"] > 0 and found["tookRight"] <= found["boxRight"] + 1, found  # ...Took in sight
    assert output.get_by_text("calls itself", exact=False).count() == 1
    names = output.locator(".mcp-widgets-history-names")
    expect(names).to_have_text(
        "demo (2025-11-25) calls itself “mcp-widgets-demo” · travel-agent calls itself “trips”"
    )
    ten = table.locator("td.fields summary").filter(has_text="10 fields: User name *, Email *").first
    expect(ten).to_be_visible()
    expect(table.locator("td.fields li").first).to_be_hidden()
    ten.click()
    opened = ten.locator("xpath=..").locator("li")
    expect(opened).to_have_count(10)
    expect(opened.last).to_have_text("I accept the house rules *")
    ten.click()  # closed again: one line
    expect(opened.first).to_be_hidden()
    return found


def test_fifty_questions_one_line_each_in_jupyterlab_light_and_dark(
    open_notebook: OpenNotebook, screenshots: Any
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([FIFTY, "panel", "HistoryPanel(h, page_size=12)"])
    for cell in range(3):
        nb.run(cell)
        nb.wait_done(cell, timeout=UI_MS * 4)
        assert nb.stderr(cell).count() == 0
    output = nb.output(1)
    for theme in (LIGHT_THEME, DARK_THEME):
        nb.set_theme(theme)
        check_at_a_glance(output)
        shoot(nb, output, "history-50")
    nb.set_theme(LIGHT_THEME)
    # docs/history.md's: a page of twelve, one list of fields opened, the names said once below.
    small = nb.output(2)
    small.locator("td.fields summary").filter(has_text="10 fields:").first.click()
    expect(small.locator("td.fields details[open] li")).to_have_count(10)
    nb.page.mouse.move(0, 0)
    small.scroll_into_view_if_needed()
    small.screenshot(path=str(screenshots / "history-panel.png"), animations="disabled")


def test_fifty_questions_one_line_each_in_voila(open_notebook: OpenNotebook) -> None:
    app = open_notebook.voila([FIFTY + "panel"])
    output = app.outputs.last
    check_at_a_glance(output)
    GALLERY.mkdir(parents=True, exist_ok=True)
    app.page.mouse.move(0, 0)
    output.screenshot(path=str(GALLERY / "history-50-voila.png"))


@pytest.mark.usefixtures("saving_widget_state")
def test_in_jupyterlab_hostile_text_stays_text_updates_live_and_a_save_keeps_no_value(
    open_notebook: OpenNotebook,
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([HOSTILE_SETUP, "panel", "form"])
    page = nb.page
    for cell in range(3):
        nb.run(cell)
        nb.wait_done(cell, timeout=UI_MS * 4)
    table = nb.output(1).locator("table.mcp-widgets-history")
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table.locator("td.msg").get_by_text(PWN, exact=True)).to_be_visible()  # literal text
    expect(table.get_by_text(f"URL: {PWN}", exact=True)).to_be_visible()
    assert nb.output(1).locator("img, script").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    expect(table.locator("tbody tr").first).to_contain_text("pending…")

    field = nb.output(2).locator("input[type=text]").first
    field.click()
    page.keyboard.type(CANARY)
    nb.output(2).get_by_role("button", name="Accept").click()
    expect(nb.output(2).get_by_text("Request from shop: accepted by the person", exact=True)).to_be_visible()
    expect(table.locator("tbody tr").first).to_contain_text("accepted")  # live
    assert CANARY not in nb.output(1).inner_text()
    page.mouse.move(0, 0)
    GALLERY.mkdir(parents=True, exist_ok=True)  # for a person to judge; no docs page shows it
    nb.output(1).screenshot(path=str(GALLERY / "history-hostile.png"))

    nb.run_command("docmanager:save")  # resolves once the file is written
    saved = (nb.server.root / nb.path).read_text()
    state = json.loads(saved)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    panels = [
        m["state"] for m in state.values() if m["state"].get("_anywidget_id") == "mcp_widgets.HistoryPanel"
    ]
    assert len(panels) == 1  # the panel was saved as its one model: rows of plain text...
    assert [line["cells"][4] for line in panels[0]["lines"]][1:] == ["Log in", PWN]  # ...shown as text
    assert not [m for m in state.values() if m["model_name"] == "HTMLModel"]
    assert CANARY not in saved
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert open_notebook.page_errors == []


THREE = """
from mcp_widgets.core.history import History
from mcp_widgets.widgets import ElicitationForm, HistoryPanel
history = History()
forms = []
for server, message in (("shop", "Which city?"), ("bank", "Your account?"), ("shop", "Your room?")):
    props = {"answer": {"type": "string", "title": "Answer"}}
    form = ElicitationForm(message, {"type": "object", "properties": props}, server=server)
    asked = history.begin(server=server, mode="form", message=message, source=("tool", "ask"),
                          fields=form.spec.fields)
    form.add_done_callback(lambda done, i=asked.id: history.finish(i, done.outcome))
    forms.append(form)
panel = HistoryPanel(history)
"""


GONE = """
views = panel._views
lines = panel.lines
history.begin(server="shop", mode="form", message="After it went", source=("tool", "ask"), fields=())
drawn = panel.lines is not lines
print(f"views {views}, drawn {panel.drawing}; after a question: drawn {drawn}, read: {panel.rows[0][4]}")
"""


@pytest.mark.usefixtures("saving_widget_state")
def test_three_questions_answered_filtered_in_the_page_and_nothing_typed_kept(
    open_notebook: OpenNotebook,
) -> None:
    """Issue 49: the panel is one model drawn by its own module. Three questions answered by the person
    (accepted, declined, cancelled, each after typing) show in it live; its dropdowns filter in the page;
    nothing typed is on the page or in the saved notebook. Once the page no longer shows it, the kernel stops
    drawing it."""
    from playwright.sync_api import expect

    nb = open_notebook([THREE, "panel", "forms[0]", "forms[1]", "forms[2]", GONE])
    for cell in range(5):
        nb.run(cell)
        nb.wait_done(cell, timeout=UI_MS * 4)
    panel = nb.output(1)
    rows = panel.locator("table.mcp-widgets-history tbody tr")
    expect(rows).to_have_count(3)
    for cell, button, word in (
        (2, "Accept", "accepted"),
        (3, "Decline", "declined"),
        (4, "Cancel", "cancelled"),
    ):
        form = nb.output(cell)
        form.locator("input[type=text]").first.click()
        nb.page.keyboard.type(f"{CANARY}-{cell}")
        form.get_by_role("button", name=button).click()
        expect(form.get_by_text(word, exact=False)).to_be_visible()
    outcomes = [rows.nth(i).locator("td.outcome") for i in range(3)]
    for row, word in zip(outcomes, ("cancelled", "declined", "accepted"), strict=True):  # newest first, live
        expect(row).to_have_text(word)
    expect(panel.locator(".mcp-widgets-history-status")).to_have_text("1–3 of 3 · page 1 of 1")

    panel.get_by_label("Outcome", exact=True).select_option(label="Declined")
    expect(rows).to_have_count(1)
    expect(rows.first.locator("td.server")).to_have_text("bank")
    panel.get_by_label("Outcome", exact=True).select_option(label="All outcomes")
    panel.get_by_label("Server", exact=True).select_option(label="shop")
    expect(rows).to_have_count(2)
    expect(rows.locator("td.msg")).to_have_text(["Your room?", "Which city?"])
    expect(panel.get_by_role("button", name="Older")).to_be_disabled()
    assert CANARY not in panel.inner_text()
    for theme in (LIGHT_THEME, DARK_THEME):
        nb.set_theme(theme)
        shoot(nb, panel, "history-three")
    nb.set_theme(LIGHT_THEME)

    nb.run_command("docmanager:save")  # resolves once the file is written
    saved = (nb.server.root / nb.path).read_text()
    assert CANARY not in saved
    state = json.loads(saved)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    (kept,) = [
        m["state"] for m in state.values() if m["state"].get("_anywidget_id") == "mcp_widgets.HistoryPanel"
    ]
    assert kept["server_filter"] == "shop" and len(kept["lines"]) == 2

    # The page stops showing the panel (every output cleared): the kernel stops drawing it, and draws it
    # again when Python reads its rows
    nb.run_command("notebook:clear-all-cell-outputs")
    nb.run(5)
    nb.wait_done(5)
    said = "views 0, drawn False; after a question: drawn False, read: After it went"
    expect(nb.stdout(5)).to_have_text(said)
    assert open_notebook.page_errors == []
