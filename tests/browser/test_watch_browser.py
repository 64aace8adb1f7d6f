"""A watch (`srv.watch(uri)`, #44) in a real JupyterLab: the resource shown under its status line, redrawn in
place (the same element, not a new output) when the server says it changed; the status line says how many
updates and when, and that it ended; a saved notebook (widget state saved too: the worst case) keeps the
status line, never the resource. Screenshots: `docs/screenshots/watch-light.png`, `watch-dark.png`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import OpenNotebook
from .gallery import layout_problems
from .harness import DARK_THEME, LIGHT_THEME, ROOT, UI_MS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CONNECT = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
import mcp_widgets as mw
from tests.servers.live import COUNTER, build_server
srv = await mw.connect(build_server(), mode="legacy")
"""
WATCH = "watch = srv.watch(COUNTER)\nwatch"
BUMP = 'r = await srv.call_tool("bump", {"times": 3})'
STOP = "watch.stop()\nwatch.wait(99, timeout=10)\nprint(watch.status)"


def test_a_watch_redraws_in_place(
    open_notebook: OpenNotebook, screenshots: Path, saving_widget_state: None
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([CONNECT, WATCH, BUMP, STOP])
    for index in (0, 1):
        nb.run(index)
        nb.wait_done(index, timeout=UI_MS * 4)
    view = nb.output(1).locator(".mcp-watch")
    expect(view).to_be_visible(timeout=UI_MS)
    expect(view.locator(".mcp-watch-title")).to_have_text("live://counter")
    expect(view.locator(".mcp-watch-body")).to_contain_text("count 0")
    expect(view.locator(".mcp-watch-status")).to_contain_text("not updated yet")
    view.evaluate("el => { el.dataset.marked = 'before' }")  # the same element after the update?

    nb.run(2)
    nb.wait_done(2)
    expect(view.locator(".mcp-watch-body")).to_contain_text("count 3", timeout=UI_MS)
    expect(view.locator(".mcp-watch-status")).to_contain_text("updated ")
    assert view.get_attribute("data-marked") == "before"  # redrawn in place
    expect(nb.output(1).locator(".mcp-watch")).to_have_count(1)
    assert "count 0" not in (view.locator(".mcp-watch-body").text_content() or "")

    for theme, name in ((LIGHT_THEME, "watch-light.png"), (DARK_THEME, "watch-dark.png")):
        nb.set_theme(theme)
        assert not layout_problems(view), layout_problems(view)
        nb.page.mouse.move(0, 0)
        view.scroll_into_view_if_needed()
        nb.output(1).screenshot(path=str(screenshots / name), animations="disabled")
    nb.set_theme(LIGHT_THEME)

    nb.run(3)
    nb.wait_done(3)
    expect(nb.stdout(3)).to_contain_text("ended: stopped")
    expect(view.locator(".mcp-watch-status")).to_contain_text("ended: stopped")
    expect(view.locator(".mcp-watch-body")).to_contain_text("count 3")  # the last contents stay

    nb.run_command("docmanager:save")
    saved_path = nb.server.root / nb.path
    expect(nb.page.locator(".jp-mod-dirty")).to_have_count(0, timeout=UI_MS)
    saved = saved_path.read_text()
    assert "application/vnd.jupyter.widget-state+json" in saved  # the widget state was saved...
    assert "watch of live://counter (a live view while the kernel runs)" in saved  # its text: one line
    assert "ended: stopped" in saved  # the status line in the widget state
    assert "count 3" not in saved  # never the resource
