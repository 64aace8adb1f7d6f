"""The history table at 1280 px (JupyterLab's default layout): every column, "Took" the last, is in sight
without scrolling sideways (it was hidden behind the table's scrollbar)."""

from __future__ import annotations

import pytest

from .conftest import OpenNotebook
from .test_gallery_browser import HISTORY, SETUP

pytestmark = pytest.mark.browser

EXPIRED = HISTORY.replace(
    "HistoryPanel(h)",
    'h.begin_request(server="demo", mode="form", message="Who is the table for?", source=("tool", "book"),\n'
    '                fields=[("name", "Name", True), ("guests", "Guests", False)],\n'
    '                outcome=Outcome(Action.ACCEPT, Reason.EXPIRED, by="person",\n'
    '                                note="answered after 10 min 24 s; the server kept it no longer"))\n'
    "HistoryPanel(h)",
)


def test_the_last_column_is_in_sight_at_1280_px(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([SETUP, EXPIRED])
    for i in (0, 1):
        nb.run(i)
        nb.wait_done(i, timeout=60_000)
    out = nb.output(1)
    expect(out.locator("td.took")).to_have_count(4)
    assert nb.page.viewport_size == {"width": 1280, "height": 1000}
    box = out.locator(".mcp-widgets-history-scroll").evaluate(
        """(el) => ({scroll: el.scrollWidth, client: el.clientWidth, right: el.getBoundingClientRect().right,
                     took: Math.max(...[...el.querySelectorAll('td.took')].map(
                         (td) => td.getBoundingClientRect().right))})"""
    )
    assert box["scroll"] <= box["client"] + 1 and box["took"] <= box["right"] + 1, box
