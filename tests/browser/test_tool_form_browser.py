"""A tool form in real JupyterLab as a person uses it: type the arguments, click Run, read the result,
answer a question the tool asks inside the form; server text stays text."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from .gallery import shoot_in_both_themes
from .harness import UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'

CONNECT = """\
import mcp_widgets as mw
from mcp_widgets.demo import create_server
from mcp_widgets.widgets._tool_form import tool_form
srv = await mw.connect(create_server(sign_in_port=0), name="demo")
"""
HOSTILE_SERVER = f"""\
from typing import Annotated
from mcp.server.mcpserver import MCPServer
from pydantic import Field
HOSTILE = {HOSTILE!r}
evil = MCPServer("evil")

@evil.tool(title="Evil " + HOSTILE, description="Says " + HOSTILE)
def shout(text: Annotated[str, Field(title="Text " + HOSTILE)] = "x") -> str:
    return "Result " + HOSTILE

bad = await mw.connect(evil, name="evil")
tool_form(bad, "shout")
"""


def tool_form_in(nb: NotebookPage, index: int) -> Any:
    """Run cell `index` (it shows a tool form) and return the form's element once visible."""
    from playwright.sync_api import expect

    started = nb.run(index)
    form = nb.output(index).locator(".mcp-widgets-tool-form")
    expect(form.get_by_role("button", name="Run")).to_be_visible()
    print(f"[run to tool form visible {time.perf_counter() - started:.2f} s]", end=" ")
    return form


def connected(open_notebook: OpenNotebook, *cells: str) -> NotebookPage:
    nb = open_notebook([CONNECT, *cells])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    return nb


def test_a_person_fills_the_arguments_runs_and_runs_again(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = connected(open_notebook, 'tool_form(srv, "search_files")')
    form = tool_form_in(nb, 1)
    run = form.get_by_role("button", name="Run")
    expect(run).to_be_disabled()  # the query is required
    form.get_by_label("Query *").fill("tmp")
    options = form.get_by_label("Options", exact=True)  # labels in sentence case, as "Sort by"
    options.fill('{"min_size": oops')
    expect(form.get_by_text("⚠ Error: not valid JSON", exact=False)).to_be_visible()
    expect(run).to_be_disabled()
    options.fill('{"min_size": 100}')
    expect(form.get_by_text("⚠ Error", exact=False)).to_have_count(0)
    expect(run).to_be_enabled()
    run.click()
    stdout = form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text('"total": 2')
    expect(stdout).to_contain_text('"name": "cache.tmp"')
    # The values stay: change one and run again; the new result replaces the old one.
    form.get_by_label("Query *").fill("notes")
    options.fill("")
    run.click()
    expect(stdout).to_contain_text('"name": "notes.txt"')
    expect(stdout).not_to_contain_text("cache.tmp")


def test_a_question_the_tool_asks_is_answered_inside_the_form(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = connected(open_notebook, 'tool_form(srv, "weather")')
    form = tool_form_in(nb, 1)
    form.get_by_role("button", name="Run").click()  # no city: the tool asks which
    question = form.locator(".mcp-widgets-form:not(.mcp-widgets-tool-form)")
    expect(question.get_by_text("Which city? Decline to get the weather for Paris.")).to_be_visible()
    question.get_by_label("City").fill("Oslo")
    question.get_by_role("button", name="Accept").click()
    stdout = form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text('"city": "Oslo"')
    expect(form.get_by_role("button", name="Run")).to_be_enabled()


def test_server_text_stays_text(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = connected(open_notebook, HOSTILE_SERVER)
    form = tool_form_in(nb, 1)
    expect(form.get_by_text(f"Evil {HOSTILE} — tool shout on evil", exact=True)).to_be_visible()
    expect(form.get_by_text(f"Says {HOSTILE}", exact=True)).to_be_visible()
    expect(form.locator("label.widget-label", has_text=f"Text {HOSTILE}")).to_be_visible()
    form.get_by_role("button", name="Run").click()
    stdout = form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text(f"Result {HOSTILE}")
    assert nb.page.evaluate("typeof window.__pwned") == "undefined"
    assert nb.page.locator(".jp-OutputArea img, .jp-OutputArea script").count() == 0


# A kernel slow to handle each change of the city (as a loaded one is): the front end holds the later
# keystrokes back until the kernel says idle for the first, while the click on Run goes out at once.
SLOW_CITY = """\
import time
weather_form = tool_form(srv, "weather")
weather_form._fields["city"].control.observe(lambda _change: time.sleep(0.4), names="value")
weather_form
"""


def test_run_right_after_typing_sends_everything_typed(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = connected(open_notebook, SLOW_CITY)
    form = tool_form_in(nb, 1)
    form.get_by_label("City", exact=True).press_sequentially("Kyoto")
    form.get_by_role("button", name="Run").click()
    stdout = form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text('"city": "Kyoto"', timeout=UI_MS * 4)


def test_copy_as_code_copies_the_call_or_shows_it_to_select(open_notebook: OpenNotebook) -> None:
    """Copy as code: the call, as the notebook names the server, goes to the clipboard; where the browser
    refuses, the code shows under the buttons, selected, as text."""
    from playwright.sync_api import expect

    nb = connected(open_notebook, 'weather_form = tool_form(srv, "weather")\nweather_form')
    form = tool_form_in(nb, 1)
    context = nb.page.context
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=nb.server.url)
    try:
        form.get_by_label("City").fill("Oslo <b>x</b>")
        form.get_by_role("button", name="Copy as code").click()
        expect(form.get_by_text("Copied: paste it into a cell.")).to_be_visible()
        expected = 'await srv.call_tool("weather", {"city": "Oslo <b>x</b>"})'
        assert nb.page.evaluate("navigator.clipboard.readText()") == expected
        # A browser that refuses (an address that is not a secure context, a denied permission).
        nb.page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new Error('no')); }")
        form.get_by_role("button", name="Copy as code").click()
        box = form.get_by_role("textbox", name="The call as Python code")
        expect(box).to_have_value(expected)
        expect(box).to_be_focused()
        assert box.evaluate("(el) => el.value.slice(el.selectionStart, el.selectionEnd)") == expected
        expect(form.locator("b")).to_have_count(0)  # the value is text, never markup
        shoot_in_both_themes(nb, {"tool-form-copy-code": form})
    finally:
        context.clear_permissions()
