"""A call's progress bar and log in a real JupyterLab, and the plain text the call leaves when it ends."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from .harness import UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

CONNECT = """\
import mcp_widgets.client as mwc
from mcp_widgets.demo import create_server
srv = await mwc.connect(create_server(), name="demo", log_level="debug")
"""
LONG_TASK = "r = await srv.call_tool('long_task', {'seconds': 4, 'steps': 4})\nprint(r.structured_content)"
QUIET = "r = await srv.call_tool('list_files')\nprint('listed')"


def test_progress_and_log_while_running_then_text(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([CONNECT, LONG_TASK, QUIET])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    started = nb.run(1)
    out = nb.output(1)
    # While it runs, the call's line (one model): a bar, the server's message with the count, and a collapsed
    # log that opens.
    line = out.locator(".mcp-call-line")
    expect(line.locator(".mcp-call-line-bar")).to_be_visible(timeout=UI_MS * 2)
    expect(line.locator(".mcp-call-line-progress")).to_have_text(re.compile(r"step \d of 4 \(\d+%\)"))
    print(f"[run to bar visible {time.perf_counter() - started:.2f} s]", end=" ")
    expect(nb.prompt(1)).to_have_text("[*]:")
    expect(line.locator(".mcp-call-line-status")).to_be_hidden()  # an awaited call: the cell shows [*]
    title = line.locator(".mcp-call-line-log summary")
    expect(title).to_have_text(re.compile(r"^Log \(\d+ messages?\)$"))
    log = line.locator(".mcp-call-line-log-text")
    expect(log).to_be_hidden()
    title.click()
    expect(log).to_be_visible()
    expect(log).to_contain_text("[info] demo: starting 4 steps over 4 s")
    # When it ends: plain text (no widget left), the log still there, collapsed.
    nb.wait_done(1, timeout=UI_MS * 4)
    expect(out.get_by_text("Progress: done — step 4 of 4 (100%)")).to_be_visible()
    expect(out.locator(".jupyter-widgets, .mcp-call-line, textarea")).to_have_count(0)
    summary = out.locator("details summary")
    expect(summary).to_have_text("Log (6 messages)")
    summary.click()
    expect(out.locator("details pre")).to_contain_text("[debug] demo: finished step 4")
    expect(nb.stdout(1)).to_have_text("{'done': True, 'steps': 4}\n")

    # A call with nothing to show leaves an empty display that takes no room.
    nb.run(2)
    nb.wait_done(2)
    expect(nb.stdout(2)).to_have_text("listed\n")
    first = nb.output(2).locator(".jp-OutputArea-child").first
    box = first.bounding_box()
    assert box is not None
    print(f"[empty call display: {box['height']:.0f} px high]", end=" ")
    assert box["height"] < 2, "an empty call display takes room in the cell"
