"""`mw.pending()` in JupyterLab: a 2026-07-28 task's question, asked by a cell that has finished, is listed
with how long it has waited and the time left, and answered right there; the call completes. The list is one
model: a notebook saved while its card is typed into keeps its lines, never the value."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from .harness import ROOT, UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

CONNECT = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
import mcp_widgets as mw
from tests.servers.tasks2026 import build_server
server, ext = build_server(ttl_ms=600_000)
srv = await mw.connect(server, name="tasks")
"""
CELLS = [
    CONNECT,
    'call = srv.call_tool_background("ask_names")',
    "mw.pending()",
    "print((await call).content[0].text)",
]


@pytest.mark.usefixtures("saving_widget_state")
def test_the_pending_view_answers_a_question_of_a_finished_cell(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    from .gallery import shoot_in_both_themes

    nb = open_notebook(CELLS)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(1)
    nb.wait_done(1)  # the calling cell has finished; its question waits in its output
    expect(nb.output(1).get_by_text("Name number 1?", exact=True)).to_be_visible()
    # The call's panel follows the task, with its time to live counting down.
    status = "Task input required: Waiting for the answer to q1 · 9 min left"
    expect(nb.output(1).get_by_text(status, exact=True)).to_be_visible()
    nb.run(2)
    listing = nb.output(2).locator(".mcp-widgets-pending")
    expect(listing.get_by_text("1 open question", exact=True)).to_be_visible()
    line = listing.locator(".mcp-widgets-pending-row").first.locator(".mcp-widgets-pending-line")
    expect(line).to_have_text(re.compile(r"^tasks · waited \d+ s · 9 min left$"))  # the card shows the rest
    # The waited time counts up while the list is shown.
    expect(line).to_have_text(re.compile(r"waited ([3-9]|\d\d) s"), timeout=UI_MS)
    shoot_in_both_themes(nb, {"pending": nb.output(2), "pending-calling-cell": nb.output(1)})
    # Answered in the list: the same form as in the calling cell.
    listing.get_by_label("Name").press_sequentially("Ada")
    # Saved while typed into (widget state on): the list is one model of lines and a card reference, and
    # neither it nor the card keeps what was typed.
    nb.run_command("docmanager:save")
    saved = (nb.server.root / nb.path).read_text()
    state = json.loads(saved)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    (kept,) = [
        m["state"] for m in state.values() if m["state"].get("_anywidget_id") == "mcp_widgets.PendingList"
    ]
    assert kept["title"] == "1 open question" and len(kept["cards"]) == 1
    assert re.match(r"^tasks · waited \d+ s · 9 min left$", kept["rows"][0]["line"])
    assert "Ada" not in saved
    listing.get_by_role("button", name="Accept").click()
    expect(listing.get_by_text("No open questions", exact=True)).to_be_visible()
    nb.run(3)
    nb.wait_done(3)
    answers = json.loads(nb.stdout(3).inner_text().strip())
    assert answers == [{"action": "accept", "content": {"name": "Ada"}}]
    expect(nb.output(1).locator("input")).to_have_count(0)  # the calling cell's view ended too
