"""A 2026-07-28 question that expires, as a person sees it in JupyterLab: how long it has, a late answer
refused in one line, and the same question asked again with what was typed (a real server over stdio whose
request state lives a few seconds: the SDK's own sealing, as a default server after 10 minutes)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from .gallery import shoot_in_both_themes
from .harness import ROOT, UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]
TTL = 4
CONNECT = f"""\
import sys
import mcp_widgets as mw
server = [sys.executable, {str(ROOT / "tests" / "servers" / "expiring.py")!r}, "{TTL}"]
srv = await mw.connect(server, name="expiring")
"""
CALL = "r = await srv.call_tool('book')\nprint(r.content[0].text)"


def test_a_late_answer_is_refused_in_one_line_and_asked_again_as_typed(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([CONNECT, CALL])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    nb.run(1)
    out = nb.output(1)
    form = out.locator(".mcp-widgets-form")
    expect(form.get_by_text("Who is the table for?", exact=True)).to_be_visible()
    left = out.get_by_text("Answer within about", exact=False)
    expect(left).to_be_visible()  # how long the question has, beside it
    assert left.inner_text().endswith("(most servers keep a question 10 min)")
    form.get_by_label("Name").press_sequentially("Ada")
    # What the page holds (a CI run once sent "Ad": this tells a page that lost the key from a kernel that
    # lost the edit).
    expect(form.get_by_label("Name")).to_have_value("Ada")
    shoot_in_both_themes(nb, {"round-time-left": out}, end_light=False)
    time.sleep(TTL + 0.5)  # the person comes back after the server stopped keeping the question
    form.get_by_role("button", name="Accept").click()
    nb.wait_done(1)
    error = out.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
    expect(error).to_have_count(1)
    lines = error.inner_text().strip().splitlines()
    assert len(lines) == 1, lines  # one line, no traceback
    assert lines[0].startswith("AnswerExpired: tool 'book' on 'expiring' ended: its question expired")
    assert "Ada" not in lines[0]
    # The question's line says how it ended: expired, not accepted.
    expect(out.get_by_text("Request from expiring: expired (answered after", exact=False)).to_be_visible()
    expect(out.get_by_text("accepted", exact=False)).to_have_count(0)
    shoot_in_both_themes(nb, {"round-expired": out})

    nb.run(1)  # calling again (the same cell): the same question, what was typed already in it
    form = out.locator(".mcp-widgets-form")
    left = out.get_by_text("Answer within about", exact=False)
    expect(left).to_contain_text("expiring kept its last question")
    expect(form.get_by_label("Name")).to_have_value("Ada")
    form.get_by_role("button", name="Accept").click()
    nb.wait_done(1)
    expect(nb.stdout(1)).to_have_text('{"name": "Ada", "guests": 2}\n')
