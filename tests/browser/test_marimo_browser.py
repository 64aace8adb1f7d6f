"""marimo in a real browser: `marimo edit` (one server for the session) driven in Chromium.

The quickstart opens and runs its cells; a background call's line (one anywidget) follows the call after its
cell returned and a later cell runs again with the result; an awaited question is declined with its one line;
composed displays (`mw.preview`) show their text, never marimo's "not supported" box, light and dark; the
history panel and the open-questions list (one anywidget each) are drawn, live.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.marimo_rig import ROOT, notebook

from .conftest import OpenMarimo
from .harness import UI_MS
from .marimo_server import MarimoServer

pytestmark = pytest.mark.browser

RUN_MS = 90_000
"""Page load to the last cell run: marimo starts a kernel, which connects to the demo (measured 5–10 s)."""
NOT_SUPPORTED = "not supported in marimo"
"""The start of marimo's yellow box for a composed ipywidgets display."""


def cell(page: Any, code: str) -> Any:
    """The marimo cell whose code contains `code` (its editor shows the code as text)."""
    return page.locator(".marimo-cell").filter(has=page.get_by_text(code, exact=False)).first


def test_marimo_quickstart_runs_and_a_background_call_line_follows_the_call(
    open_marimo: OpenMarimo, marimo_server: MarimoServer, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    page = open_marimo(marimo_server.copy(ROOT / "notebooks" / "quickstart_marimo.py"))
    # The cells ran on open (auto_instantiate): connected, listed, called.
    expect(cell(page, "srv = await mw.connect").locator(".output-area")).to_contain_text(
        "<Server 'demo'", timeout=RUN_MS
    )
    expect(cell(page, "srv.tools").locator(".output-area")).to_contain_text("list_files")

    # The background call's line is one anywidget in the cell's output, drawn after the cell returned: the
    # progress bar and lines, then the result; the later cell that reads `task.ui` ran again with it.
    task = cell(page, "task = srv.call_tool_background")
    line = task.locator(".mcp-call-line")
    expect(line.locator(".mcp-call-line-status")).to_have_text(
        "tool 'long_task' on 'demo': done", timeout=RUN_MS
    )
    expect(line.locator(".mcp-call-line-progress")).to_have_text("step 4 of 4 (100%)")
    expect(line.locator(".mcp-call-line-result")).to_contain_text('"steps": 4')
    expect(cell(page, "task_line.value").locator(".output-area")).to_contain_text('"steps"')
    expect(cell(page, "task_line.value").locator(".output-area")).to_contain_text("4")

    # The question of a background call: drawn inside the call's line, waiting for the person.
    register = cell(page, "registration = srv.call_tool_background").locator(".mcp-call-line")
    expect(register.locator(".mcp-call-line-status")).to_have_text(
        "tool 'register' on 'demo': waiting for an answer", timeout=RUN_MS
    )
    expect(register.locator(".mcp-widgets-question")).to_contain_text("Register for the MCP workshop")
    # The cell reading the line ran before the call ended (and runs again when it ends, not before).
    expect(cell(page, "registration_line.value").locator(".output-area")).to_contain_text(
        re.compile(r"the call is (running|waiting for an answer): answer the question above")
    )

    # An awaited call's question: declined at once, and its cell says why in one line (its stderr).
    weather = cell(page, 'weather = await srv.call_tool("weather")')
    expect(weather.locator(".console-output-area")).to_contain_text(
        "'demo' asked a question while this cell ran, and marimo delivers no click to a running cell",
        timeout=RUN_MS,
    )
    expect(weather.locator(".console-output-area")).to_contain_text("srv.call_tool_background(...)")
    expect(weather.locator(".output-area")).to_contain_text("Paris")
    expect(page.get_by_text(NOT_SUPPORTED)).to_have_count(0)

    task.scroll_into_view_if_needed()
    task.screenshot(path=str(screenshots / "marimo-call-line.png"), animations="disabled")


def test_marimo_preview_is_a_live_form_never_the_yellow_box_light_and_dark(
    open_marimo: OpenMarimo, marimo_server: MarimoServer, screenshots: Path
) -> None:
    """`mw.preview` in marimo: the form itself (typed into and accepted there), its schema's lines as text
    under it; a composed view not yet moved (a tool form) shows its text."""
    from playwright.sync_api import expect

    url = marimo_server.write(
        "preview_text.py",
        notebook(
            "import mcp_widgets as mw",
            'mw.preview({"type": "object", "properties": {"name": {"type": "string"}}}, server="<b>srv</b>")',
            f'srv = await mw.connect([{sys.executable!r}, "-m", "mcp_widgets.demo"], name="demo")',
            'srv.form("weather")',
        ),
    )
    for scheme in ("light", "dark"):
        page = open_marimo(url, color_scheme=scheme)
        preview = cell(page, "mw.preview(").locator(".output-area")
        card = preview.locator(".mcp-widgets-question")
        # The server's name as text, never HTML (no bold element made of it).
        expect(card).to_contain_text("Request from <b>srv</b>", timeout=RUN_MS)
        expect(preview.locator("b")).to_have_count(0)
        expect(preview).to_contain_text("No problems found in this schema.")
        expect(preview).to_contain_text("What each button would send now:\nAccept → ")  # one per line
        form = cell(page, 'srv.form("weather")').locator(".output-area")
        expect(form).to_contain_text("<ToolForm tool='weather' server='demo'", timeout=RUN_MS)
        expect(page.get_by_text(NOT_SUPPORTED)).to_have_count(0)
        expect(page.locator("body")).to_have_class(
            "dark dark-theme" if scheme == "dark" else "light light-theme", timeout=UI_MS
        )
        preview.screenshot(path=str(screenshots / f"marimo-preview-{scheme}.png"), animations="disabled")
    # Typed into and accepted in the page (the last one opened: the notebook's session is the same), the form
    # leaves its one line, never the value.
    card.get_by_label("name").fill("Ada")
    card.get_by_role("button", name="Accept").click()
    expect(card).to_contain_text("Request from <b>srv</b>: accepted by the person", timeout=UI_MS)
    expect(card).not_to_contain_text("Ada")


QUESTIONS = (
    "import mcp_widgets as mw",
    f'srv = await mw.connect([{sys.executable!r}, "-m", "mcp_widgets.demo"], name="demo")',
    'accepted = srv.call_tool_background("weather")\naccepted_line = accepted.ui',
    'declined = srv.call_tool_background("weather")\ndeclined_line = declined.ui',
    'cancelled = srv.call_tool_background("weather")\ncancelled_line = cancelled.ui',
    "accepted_line.value\nprint('accepted:', accepted.done() and accepted.result().structured_content)",
)


# True once focus (looked for through shadow roots) is in the marimo cell whose code holds `arg`.
FOCUS_IN_CELL = """(code) => {
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
        active = active.shadowRoot.activeElement;
    }
    const cell = active && active.closest ? active.closest(".marimo-cell") : null;
    return Boolean(cell && cell.textContent.includes(code));
}"""


def test_marimo_background_questions_typed_and_accepted_declined_cancelled(
    open_marimo: OpenMarimo, marimo_server: MarimoServer, screenshots: Path
) -> None:
    """Each question is drawn in its call's line and answered after the cell returned (one by Enter, which
    puts focus back in its cell); the line ends with the result, and the cell reading `accepted.ui` runs
    again."""
    from playwright.sync_api import expect

    page = open_marimo(marimo_server.write("questions.py", notebook(*QUESTIONS)))
    lines = {
        name: cell(page, f"{name} = srv.call_tool_background").locator(".mcp-call-line")
        for name in ("accepted", "declined", "cancelled")
    }
    for line in lines.values():
        expect(line.locator(".mcp-call-line-status")).to_have_text(
            "tool 'weather' on 'demo': waiting for an answer", timeout=RUN_MS
        )
    accepted = lines["accepted"]
    accepted.get_by_label("City").fill("Oslo")
    accepted.scroll_into_view_if_needed()
    accepted.screenshot(path=str(screenshots / "marimo-question.png"), animations="disabled")
    accepted.get_by_label("City").press("Enter")  # Enter in the last field accepts, as in JupyterLab
    # The card's controls went: focus went back to the cell that shows it (its editor), not to the page.
    expect(accepted.locator("input")).to_have_count(0, timeout=UI_MS)
    deadline = time.monotonic() + UI_MS / 1000
    while not page.evaluate(FOCUS_IN_CELL, "accepted = srv.call_tool_background"):
        assert time.monotonic() < deadline, "focus did not go back to the answered card's cell"
        time.sleep(0.1)
    lines["declined"].get_by_role("button", name="Decline").click()
    lines["cancelled"].get_by_role("button", name="Cancel").click()

    ends = {"accepted": "accept", "declined": "decline", "cancelled": "cancel"}
    for name, action in ends.items():
        line = lines[name]
        expect(line.locator(".mcp-call-line-status")).to_have_text(
            "tool 'weather' on 'demo': done", timeout=UI_MS
        )
        expect(line.locator(".mcp-call-line-result")).to_contain_text(f'"answer": "{action}"')
        # What was typed is never shown back in the line (the server echoes it): redacted there.
        city = "[redacted]" if name == "accepted" else "Paris"
        expect(line.locator(".mcp-call-line-result")).to_contain_text(f'"city": "{city}"')
    # The later cell ran again when the call ended: the result reached it without any cell waiting.
    later = cell(page, "accepted_line.value").locator(".console-output-area")
    expect(later).to_contain_text("accepted: {'city': 'Oslo'", timeout=UI_MS)


URL_CARD = (
    "import mcp_widgets as mw",
    f'srv = await mw.connect([{sys.executable!r}, "-m", "mcp_widgets.demo", "--sign-in-port", "0"], '
    'name="demo", mode="legacy")',
    'signing = srv.call_tool_background("sign_in")\nsigning_line = signing.ui',
)


def test_marimo_background_url_card_opens_the_page_in_the_click_and_the_call_finishes(
    open_marimo: OpenMarimo, marimo_server: MarimoServer, screenshots: Path
) -> None:
    """A URL card is drawn in its call's line (one model, the question card's renderer): the address as
    text, nothing opened before the click; Open page opens exactly that address in a new tab, without an
    opener, in the click; signing in there ends the card (2025-11-25's completion) and the call."""
    from playwright.sync_api import expect

    page = open_marimo(marimo_server.write("url_card.py", notebook(*URL_CARD)))
    line = cell(page, "signing = srv.call_tool_background").locator(".mcp-call-line")
    expect(line.locator(".mcp-call-line-status")).to_have_text(
        "tool 'sign_in' on 'demo': waiting for an answer", timeout=RUN_MS
    )
    shown = line.get_by_text("Full address: ", exact=False)
    expect(shown).to_be_visible()
    url = shown.inner_text().removeprefix("Full address: ")
    expect(line.get_by_text("Opens a page on: 127.0.0.1", exact=True)).to_be_visible()
    expect(line.locator("a")).to_have_count(0)  # no live link before consent
    expect(page.get_by_text(NOT_SUPPORTED)).to_have_count(0)
    # The card's view was told the checked address: a click opens it (a click sooner only consents).
    expect(line.locator(".mcp-widgets-url[data-mcp-widgets-open]")).to_have_count(1, timeout=UI_MS)
    page.mouse.move(0, 0)
    line.screenshot(path=str(screenshots / "marimo-url-card.png"), animations="disabled")
    pages = len(page.context.pages)
    with page.context.expect_page() as opened:
        line.get_by_role("button", name="Open page").click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == url and tab.evaluate("window.opener") is None
    assert len(page.context.pages) == pages + 1
    waiting = line.get_by_text("opened in a new tab. Waiting for you to finish there", exact=False)
    expect(waiting).to_be_visible(timeout=UI_MS)
    tab.get_by_role("button", name="Sign in as demo-user").click()
    expect(tab.get_by_text("Signed in.", exact=False)).to_be_visible()
    tab.close()  # and back to the notebook's tab (a background tab's timers are throttled)
    page.bring_to_front()
    expect(line.locator(".mcp-call-line-status")).to_have_text(
        "tool 'sign_in' on 'demo': done", timeout=UI_MS * 2
    )
    expect(line.locator(".mcp-call-line-result")).to_contain_text("demo-user")
    expect(line.get_by_role("button")).to_have_count(0)


HISTORY = (
    "import mcp_widgets as mw",
    f'srv = await mw.connect([{sys.executable!r}, "-m", "mcp_widgets.demo"], name="demo")',
    'accepted = srv.call_tool_background("weather")',
    'declined = srv.call_tool_background("weather")',
    'cancelled = srv.call_tool_background("weather")',
    "mw.history()",
)
TYPED = "Oslo-canary-3f1"


def test_marimo_history_is_live_filtered_in_the_page_and_shows_nothing_typed(
    open_marimo: OpenMarimo, marimo_server: MarimoServer
) -> None:
    """Issue 49: the history panel is one anywidget, so marimo draws it (no text stand-in): three questions
    answered in their calls' lines show in it live, its Outcome dropdown filters, nothing typed shows."""
    from playwright.sync_api import expect

    page = open_marimo(marimo_server.write("history.py", notebook(*HISTORY)))
    lines = {
        name: cell(page, f"{name} = srv.call_tool_background").locator(".mcp-call-line")
        for name in ("accepted", "declined", "cancelled")
    }
    for line in lines.values():
        expect(line.locator(".mcp-call-line-status")).to_have_text(
            "tool 'weather' on 'demo': waiting for an answer", timeout=RUN_MS
        )
    panel = cell(page, "mw.history()").locator(".output-area")
    rows = panel.locator("table.mcp-widgets-history tbody tr")
    expect(rows).to_have_count(3, timeout=UI_MS)
    expect(rows.locator("td.outcome")).to_have_text(["pending…"] * 3)
    lines["accepted"].get_by_label("City").fill(TYPED)
    lines["accepted"].get_by_role("button", name="Accept").click()
    lines["declined"].get_by_role("button", name="Decline").click()
    lines["cancelled"].get_by_role("button", name="Cancel").click()
    # Newest first, updated live after the cells returned.
    expect(rows.locator("td.outcome")).to_have_text(["cancelled", "declined", "accepted"], timeout=UI_MS)
    panel.get_by_label("Outcome", exact=True).select_option(label="Declined")
    expect(rows).to_have_count(1, timeout=UI_MS)
    expect(rows.first.locator("td.outcome")).to_have_text("declined")
    expect(panel.locator(".mcp-widgets-history-status")).to_have_text("1–1 of 1 · page 1 of 1")
    assert TYPED not in panel.inner_text()
    expect(page.get_by_text(NOT_SUPPORTED)).to_have_count(0)


PENDING = (
    "import mcp_widgets as mw",
    f'srv = await mw.connect([{sys.executable!r}, "-m", "mcp_widgets.demo"], name="demo")',
    'asking = srv.call_tool_background("weather")',
    "mw.pending()",
)


def test_marimo_open_questions_list_answers_a_question_there(
    open_marimo: OpenMarimo, marimo_server: MarimoServer
) -> None:
    """Issue 49: `mw.pending()` is one anywidget, so marimo draws it; the question it lists is drawn there
    with the card's renderer (marimo hands out models, not views), answered there, and the list empties."""
    from playwright.sync_api import expect

    page = open_marimo(marimo_server.write("pending.py", notebook(*PENDING)))
    line = cell(page, "asking = srv.call_tool_background").locator(".mcp-call-line")
    expect(line.locator(".mcp-call-line-status")).to_have_text(
        "tool 'weather' on 'demo': waiting for an answer", timeout=RUN_MS
    )
    listing = cell(page, "mw.pending()").locator(".output-area").locator(".mcp-widgets-pending")
    expect(listing.locator(".mcp-widgets-pending-title")).to_have_text("1 open question", timeout=UI_MS)
    expect(listing.locator(".mcp-widgets-pending-line")).to_have_text(re.compile(r"^demo · waited \d+ s$"))
    card = listing.locator(".mcp-widgets-question")
    card.get_by_label("City").fill(TYPED)
    card.get_by_role("button", name="Accept").click()
    expect(line.locator(".mcp-call-line-status")).to_have_text(
        "tool 'weather' on 'demo': done", timeout=UI_MS
    )
    expect(listing.locator(".mcp-widgets-pending-title")).to_have_text("No open questions", timeout=UI_MS)
    assert TYPED not in listing.inner_text()
    expect(page.get_by_text(NOT_SUPPORTED)).to_have_count(0)
