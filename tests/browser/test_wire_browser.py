"""The wire (issue 30) in a real JupyterLab, as a person reads it: a cell ending with `srv.wire` shows the
connection's JSON-RPC messages grouped by call; a group opens to its rows, a row to its message as JSON text.
What the person typed into a question is nowhere in it (page, kernel records, saved notebook); a hostile
string a server or a cell sends is literal text; a call made after the view is shown appears in it at once.
Notebook 7 shows the same view. Screenshots: `docs/screenshots/wire-light.png`, `wire-dark.png`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import OpenNotebook
from .gallery import layout_problems, shoot
from .harness import DARK_THEME, LIGHT_THEME, NOTEBOOK, ROOT, UI_MS, NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

RUN = ROOT / "tests" / "servers" / "run.py"
# The demo test server as a child process of the kernel, over stdio: real JSON-RPC on the wire.
CONNECT = f"""\
import sys
import mcp_widgets as mw
srv = await mw.connect([sys.executable, {str(RUN)!r}, "stdio", "demo"], name="demo")
"""
CANARY = "Zanzibar-Canary-77"
"""What the person types into the server's question (the notebook's sources hold it only reversed)."""
HOSTILE = "<img src=x onerror=alert(1)> $x^2$ \x1b[31m"
HOSTILE_SHOWN = "<img src=x onerror=alert(1)> $x^2$ \\x1b[31m"
"""HOSTILE as the view shows it: literal, its control character written as an escape."""

ASK = f"""\
r = await srv.call_tool("ask_name")
print("answered:", {CANARY[::-1]!r}[::-1] in r.content[0].text)
"""
# A tool whose name is markup, maths and a terminal escape (the server says it knows no such tool), and a
# resource likewise (the server's error quotes the URI back).
HOSTILE_CALLS = f"""\
hostile = {HOSTILE!r}
r2 = await srv.call_tool(hostile)
try:
    await srv.read_resource("demo://" + hostile)
except mw.ServerError:
    print("refused")
print("is error:", r2.is_error)
"""
CHECK = f"""\
import json
import ipywidgets
canary = {CANARY[::-1]!r}[::-1]
records = json.dumps(srv.wire.records(), ensure_ascii=False)
state = json.dumps(ipywidgets.Widget.get_manager_state(drop_defaults=False), default=str)
print("records:", len(srv.wire.records()), "tools/call" in records)
print("canary in records:", canary in records)
print("canary in text:", canary in srv.wire.text(limit=1000))
print("canary in widget state:", canary in state, "tool ask_name" in state)
"""


def run_ok(nb: NotebookPage, index: int, timeout: float = UI_MS) -> None:
    nb.run(index)
    nb.wait_done(index, timeout=timeout)
    assert nb.stderr(index).count() == 0, nb.stderr(index).all_inner_texts()


def wire_view(nb: NotebookPage, index: int) -> Any:
    from playwright.sync_api import expect

    view = nb.output(index).locator(".mcp-wire")
    expect(view).to_be_visible(timeout=UI_MS)
    return view


def group(view: Any, label: str) -> Any:
    """The group whose label reads exactly `label`."""
    return view.locator("details.mcp-wire-group").filter(
        has=view.page.locator(".mcp-wire-label").get_by_text(label, exact=True)
    )


def labels(view: Any) -> list[str]:
    return [t.strip() for t in view.locator("details.mcp-wire-group .mcp-wire-label").all_text_contents()]


def expect_labels(view: Any, wanted: list[str]) -> None:
    """The groups' labels read `wanted`, in order, once the view has drawn (a redraw follows a change)."""
    from playwright.sync_api import expect

    expect(view.locator("details.mcp-wire-group .mcp-wire-label")).to_have_text(wanted, timeout=UI_MS)


def open_details(details: Any) -> None:
    """Click a group's or a row's line (its <summary>), as a person opens it; it is open after."""
    from playwright.sync_api import expect

    details.locator(":scope > summary").click()
    expect(details).to_have_attribute("open", "")


# A person scrolls a long message's box to the line with `word` (its line at the top); returns scrollTop.
SCROLL_TO = """(pre, word) => {
  const text = pre.firstChild;
  const at = text.data.indexOf(word);
  const range = document.createRange();
  range.setStart(text, at);
  range.setEnd(text, at + word.length);
  const line = parseFloat(getComputedStyle(pre).lineHeight) || 16;
  // the line before it in sight too, under the box's padding
  pre.scrollTop += range.getBoundingClientRect().top - pre.getBoundingClientRect().top - 4 - line;
  return pre.scrollTop;
}"""


def body_of(row: Any) -> dict[str, Any]:
    """An opened row's message as the page shows it: indented JSON, as text only."""
    from playwright.sync_api import expect

    pre = row.locator(":scope > pre.mcp-wire-detail")
    expect(pre).to_contain_text('"message"', timeout=UI_MS)
    assert pre.locator("*").count() == 0  # text, no elements
    text = pre.text_content() or ""
    assert "\n  " in text  # indented
    found: dict[str, Any] = json.loads(text)
    return found


def test_the_wire_of_a_call_in_jupyterlab(
    open_notebook: OpenNotebook, screenshots: Path, saving_widget_state: None
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([CONNECT, ASK, "srv.wire", HOSTILE_CALLS, CHECK])
    run_ok(nb, 0, timeout=UI_MS * 4)

    # The server asks a name; the person types it and accepts.
    nb.run(1)
    form = nb.output(1).locator(".mcp-widgets-form")
    expect(form.get_by_text("What is your name?", exact=True)).to_be_visible(timeout=UI_MS * 2)
    form.get_by_label("Name").press_sequentially(CANARY)
    form.get_by_role("button", name="Accept").click()
    nb.wait_done(1)
    expect(nb.stdout(1)).to_have_text("answered: True\n")  # the answer reached the server

    # The wire: the connection's own traffic, its listings, the call.
    run_ok(nb, 2)
    view = wire_view(nb, 2)
    expect(view.locator(".mcp-wire-title")).to_have_text("The wire of demo")
    expect(view.locator(".mcp-wire-summary")).to_contain_text("messages kept")
    expect(group(view, "tool ask_name")).to_have_count(1)
    expect_labels(view, ["connection", "listings", "tool ask_name"])
    call = group(view, "tool ask_name")
    expect(call.locator(":scope > summary")).to_contain_text("ok")  # how it ended
    expect(call.locator("details.mcp-wire-row")).to_have_count(0)  # closed: its rows not even built
    open_details(call)
    rows = call.locator("details.mcp-wire-row")
    # Its rows are built by the open's toggle event, which comes after the attribute.
    expect(rows.last.locator(".mcp-wire-text")).to_contain_text("result", timeout=UI_MS)
    texts = [t.strip() for t in rows.locator(".mcp-wire-text").all_text_contents()]
    # 2026-07-28: the call, its input-required answer, the call again with the answer, the result (or the
    # 2025-11-25 way: the call, the server's elicitation/create and our answer, the result).
    assert "tools/call #" in texts[0], texts
    assert any("input required" in t or "elicitation/create" in t for t in texts), texts
    assert texts[-1].startswith("result") and "(tools/call)" in texts[-1], texts
    arrows = rows.locator(".mcp-wire-dir").all_text_contents()
    assert arrows[0] == "→" and arrows[-1] == "←", arrows

    # Opening a row shows its message, fetched from the kernel, as indented JSON text.
    first = rows.first
    open_details(first)
    sent = body_of(first)
    assert sent["direction"] == "out" and sent["message"]["method"] == "tools/call", sent
    assert sent["message"]["params"]["name"] == "ask_name"
    # The row that carries the answer says only what was answered, never the value.
    for i in range(rows.count()):
        row = rows.nth(i)
        if row.get_attribute("open") is None:
            open_details(row)
        body_of(row)
    answered = view.locator("pre.mcp-wire-detail").filter(has_text="[redacted: 1 field: name]")
    expect(answered.first).to_be_visible()
    assert CANARY not in (view.text_content() or "")
    assert CANARY not in nb.page.content()

    # The filter narrows the groups to those that match, and says when none does.
    search = view.get_by_role("searchbox", name="Filter the wire")
    search.fill("ask_name")
    expect(view.locator("details.mcp-wire-group")).to_have_count(1)
    expect_labels(view, ["tool ask_name"])
    expect(rows.first).to_have_attribute("open", "")  # what was open stays open
    search.fill("resources/templates")
    expect_labels(view, ["listings"])
    search.fill("no such thing")
    expect(view.locator("details.mcp-wire-group")).to_have_count(0)
    expect(view.get_by_text("Nothing matches.", exact=True)).to_be_visible()
    search.fill("")
    expect(view.locator("details.mcp-wire-group")).to_have_count(3)

    # docs/wire.md's pictures: the call open, the message that carries the answer open at its end.
    answer_row = rows.filter(has=view.page.locator("pre", has_text="inputResponses"))
    expect(answer_row).to_have_count(1)
    for i in range(rows.count()):
        row = rows.nth(i)
        if "inputResponses" not in (row.locator("pre").text_content() or ""):
            row.locator(":scope > summary").click()
            expect(row).not_to_have_attribute("open", "")
    answer_pre = answer_row.locator("pre.mcp-wire-detail")
    expect(answer_pre).to_contain_text('"content": "[redacted: 1 field: name]"')
    assert answer_pre.evaluate(SCROLL_TO, "inputResponses") > 0  # a long message scrolls in its own box
    for theme, name in ((LIGHT_THEME, "wire-light.png"), (DARK_THEME, "wire-dark.png")):
        nb.set_theme(theme)
        assert not layout_problems(view), layout_problems(view)
        answer_pre.evaluate(SCROLL_TO, "inputResponses")  # (a theme change may move it)
        nb.page.mouse.move(0, 0)
        view.scroll_into_view_if_needed()
        nb.output(2).screenshot(path=str(screenshots / name), animations="disabled")
    nb.set_theme(LIGHT_THEME)
    scrolled = answer_pre.evaluate(SCROLL_TO, "inputResponses")

    # Live: calls made after the view is shown appear in it (the time it took is printed); their hostile
    # names and the server's error quoting them are literal text (no element, no maths).
    nb.run(3)
    nb.wait_done(3, timeout=UI_MS * 2)
    ended = time.perf_counter()
    expect(nb.stdout(3)).to_have_text("refused\nis error: True\n")
    expect(view.locator("details.mcp-wire-group")).to_have_count(5, timeout=UI_MS)
    print(f"[call ended to its group shown {time.perf_counter() - ended:.2f} s]", end=" ")
    # A resource read's label is the URI the code read, as literal text, the listed name beside it (here its
    # scheme and host only: no template matches; the history keeps only that).
    read_label = f"resource demo://{HOSTILE_SHOWN} (demo://…)"
    assert labels(view)[3:] == [f"tool {HOSTILE_SHOWN}", read_label], labels(view)
    resource = group(view, read_label)
    expect(resource.locator(".mcp-wire-outcome-error")).to_contain_text(HOSTILE_SHOWN)
    open_details(resource)
    refused = resource.locator("details.mcp-wire-row").last
    expect(refused.locator(".mcp-wire-text")).to_contain_text(f"Unknown resource: demo://{HOSTILE_SHOWN}")
    expect(refused).to_have_class("mcp-wire-row mcp-wire-error")
    open_details(refused)
    error = body_of(refused)["message"]["error"]
    assert HOSTILE in error["message"], error
    detail = refused.locator("pre.mcp-wire-detail").text_content() or ""
    assert "<img src=x onerror=alert(1)>" in detail and "$x^2$" in detail
    assert view.locator("img, script, iframe, mjx-container, .MathJax, svg").count() == 0
    assert nb.page.locator("img[src='x']").count() == 0
    assert "x^2" in (view.text_content() or "")
    shoot(nb, view, "wire-hostile")
    # What the person had open and scrolled to stayed as it was while the new calls came in.
    expect(answer_row).to_have_attribute("open", "")
    assert answer_pre.evaluate("(el) => el.scrollTop") == scrolled

    # Nothing typed in the kernel's records, its text, the widgets' state, or the saved notebook.
    run_ok(nb, 4)
    expect(nb.stdout(4)).to_contain_text("True\ncanary in records: False\n")
    expect(nb.stdout(4)).to_contain_text("canary in text: False\ncanary in widget state: False True\n")
    nb.run_command("docmanager:save")
    expect(nb.page.locator(".jp-mod-dirty")).to_have_count(0)
    saved = (nb.server.root / nb.path).read_text()
    assert "application/vnd.jupyter.widget-state+json" in saved  # the widget state was saved...
    assert "tool ask_name" in saved  # ...with the wire's rows
    assert CANARY not in saved
    assert CANARY not in nb.server.log_tail(10**7)


ECHO = "r = await srv.call_tool('echo', {'text': 'hello'})\nprint(r.content[0].text)"


def test_the_wire_in_notebook_7(open_notebook: OpenNotebook) -> None:
    """Notebook 7, through `mw.wire()` (every connection's wire): the groups, a row's message."""
    from playwright.sync_api import expect

    nb = open_notebook([CONNECT, ECHO, "mw.wire()"], ui=NOTEBOOK)
    run_ok(nb, 0, timeout=UI_MS * 4)
    run_ok(nb, 1)
    expect(nb.stdout(1)).to_have_text("hello\n")
    run_ok(nb, 2)
    view = wire_view(nb, 2)
    expect(view.locator(".mcp-wire-title")).to_have_text("The wire of demo")
    expect(group(view, "tool echo")).to_have_count(1)
    expect_labels(view, ["connection", "listings", "tool echo"])
    call = group(view, "tool echo")
    open_details(call)
    rows = call.locator("details.mcp-wire-row")
    expect(rows).to_have_count(2)
    open_details(rows.last)
    answer = body_of(rows.last)
    assert answer["direction"] == "in" and answer["method"] == "tools/call", answer
    shoot(nb, view, "wire-notebook7")
