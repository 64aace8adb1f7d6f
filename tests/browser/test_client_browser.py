"""Tool calls through the client as a person makes them, in JupyterLab and Notebook 7: awaited, blocking and
background calls, answered with the mouse and keyboard, and a form interrupted from the toolbar."""

from __future__ import annotations

import ast
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from .harness import LAB, UI_MS, UIS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

# As in notebooks/quickstart.ipynb: the demo server as a child process of the kernel, over stdio.
CONNECT_STDIO = """\
import sys
import mcp_widgets as mw
srv = await mw.connect([sys.executable, "-m", "mcp_widgets.demo"], name="demo")
"""
# The same server in the kernel's process (starts faster; the forms are the same).
CONNECT_IN_PROCESS = """\
import mcp_widgets as mw
from mcp_widgets.demo import create_server
srv = await mw.connect(create_server(sign_in_port=0), name="demo")
"""
HEADER = "Request from demo (calls itself “mcp-widgets-demo”)"
"""The first line of every demo form: the name given in connect(), then the name the server gives itself."""
ASK_CITY = "Which city? Decline to get the weather for Paris."


def connected(open_notebook: OpenNotebook, connect: str, *cells: str, ui: str = LAB) -> NotebookPage:
    """A fresh notebook: cell 0 connects to the demo server (run here), cells 1.. are `cells`."""
    nb = open_notebook([connect, *cells], ui=ui)
    started = nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    print(f"[connect cell {time.perf_counter() - started:.2f} s]", end=" ")
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    return nb


def city_form(nb: NotebookPage, index: int) -> Any:
    """Cell `index`'s weather form, once visible: its form element."""
    from playwright.sync_api import expect

    form = nb.output(index).locator(".mcp-widgets-form")
    expect(form.get_by_text(HEADER, exact=True)).to_be_visible()
    expect(form.get_by_text(ASK_CITY, exact=True)).to_be_visible()
    return form


def printed(nb: NotebookPage, index: int) -> Any:
    """The Python literal cell `index` printed (waits for the cell to finish)."""
    from playwright.sync_api import expect

    nb.wait_done(index)
    expect(nb.stdout(index)).to_have_count(1)
    return ast.literal_eval(nb.stdout(index).inner_text().strip())


def assert_remnant(nb: NotebookPage, index: int, ending: str) -> None:
    """A resolved form leaves one line of text in cell `index` (who asked, how it ended), nothing to use."""
    from playwright.sync_api import expect

    out = nb.output(index)
    expect(out.get_by_text(f"{HEADER}: {ending}")).to_have_count(1)
    expect(out.locator(".mcp-widgets-form")).to_have_count(0)
    expect(out.locator("input, select, textarea, button")).to_have_count(0)


def weather(city: str, answer: str) -> dict[str, Any]:
    """The demo's weather result, minus the made-up weather."""
    return {"city": city, "fallback": answer != "accept", "answer": answer}


def without_weather(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k in ("city", "fallback", "answer")}


@pytest.mark.parametrize("ui", UIS)
def test_quickstart_await_fill_and_accept(open_notebook: OpenNotebook, ui: str) -> None:
    """The README's first minute, in JupyterLab and in Notebook 7: connect, await a call, answer its form."""
    from playwright.sync_api import expect

    nb = connected(
        open_notebook,
        CONNECT_STDIO,
        "result = await srv.call_tool('weather')\nprint(result.structured_content)",
        ui=ui,
    )
    started = nb.run(1)
    form = city_form(nb, 1)
    print(f"[run to form visible {time.perf_counter() - started:.2f} s]", end=" ")
    expect(nb.prompt(1)).to_have_text("[*]:")  # the cell waits for the person
    accept = form.get_by_role("button", name="Accept")
    expect(accept).to_be_disabled()  # City is required
    form.get_by_label("City").press_sequentially("Kyoto")
    expect(accept).to_be_enabled()
    accept.click()
    assert without_weather(printed(nb, 1)) == weather("Kyoto", "accept")
    assert_remnant(nb, 1, "accepted by the person")


def test_interrupt_from_the_toolbar_cancels_the_waiting_form(open_notebook: OpenNotebook) -> None:
    """The stop button while a form waits, for an awaited and a blocking call: the form ends as cancelled by
    the interrupt, the cell stops, and the next cell runs."""
    from playwright.sync_api import expect

    nb = connected(
        open_notebook,
        CONNECT_IN_PROCESS,
        "result = await srv.call_tool('weather')",
        "result = srv.call_tool_sync('weather')",
        "print('after', srv.call_tool_sync('weather', {'city': 'Oslo'}).structured_content['city'])",
    )
    for index in (1, 2):
        nb.run(index)
        form = city_form(nb, index)
        form.get_by_label("City").fill("Kyoto")  # typed, never sent
        expect(nb.prompt(index)).to_have_text("[*]:")
        nb.interrupt()
        nb.wait_done(index)
        assert_remnant(nb, index, "cancelled: the kernel was interrupted")
        expect(nb.output(index)).not_to_contain_text("Kyoto")
        expect(nb.stderr(index)).to_contain_text(re.compile("KeyboardInterrupt|CancelledError"))
        # The person's own interrupt: one line, saying it once (not a traceback through the client).
        (said,) = nb.stderr(index).inner_text().strip().splitlines()
        assert said.endswith("tool 'weather' on 'demo' was stopped: the kernel was interrupted"), said
        expect(nb.output(index)).not_to_contain_text("interrupted (the kernel was interrupted")
        nb.wait_idle()
    nb.run(3)
    nb.wait_done(3)
    expect(nb.stdout(3)).to_have_text("after Oslo\n")
    assert nb.stderr(3).count() == 0


def test_blocking_and_background_calls_take_answers_while_a_cell_runs_and_after(
    open_notebook: OpenNotebook,
) -> None:
    """call_tool_sync: its form works while its cell shows [*]. call_tool_background: its cell ends at once;
    its form works after that, and still while another cell awaits the call."""
    from playwright.sync_api import expect

    nb = connected(
        open_notebook,
        CONNECT_IN_PROCESS,
        "result = srv.call_tool_sync('weather')\nprint(result.structured_content)",
        "call = srv.call_tool_background('weather')\ncall",
        "print((await call).structured_content)",
    )
    # Blocking: the cell shows [*] all along; typing (each keystroke) and the click reach the kernel.
    nb.run(1)
    form = city_form(nb, 1)
    expect(nb.prompt(1)).to_have_text("[*]:")
    form.get_by_label("City").press_sequentially("Lima")
    accept = form.get_by_role("button", name="Accept")
    expect(accept).to_be_enabled()
    expect(nb.prompt(1)).to_have_text("[*]:")
    accept.click()
    assert without_weather(printed(nb, 1)) == weather("Lima", "accept")
    assert_remnant(nb, 1, "accepted by the person")

    # Background: the cell is done ([n]) and its form is still there; the call's status line is not done.
    nb.run(2)
    nb.wait_done(2)
    form = city_form(nb, 2)
    done = nb.output(2).get_by_text("tool 'weather' on 'demo': done", exact=False)
    expect(done).to_have_count(0)
    form.get_by_label("City").press_sequentially("Quito")  # typed with no cell running
    nb.run(3)  # awaits the call: [*] until the person answers in cell 2's form
    expect(nb.prompt(3)).to_have_text("[*]:")
    form.get_by_role("button", name="Accept").click()
    assert without_weather(printed(nb, 3)) == weather("Quito", "accept")
    expect(done).to_have_count(1)  # once: the handle shown in the calling cell adds no second line
    assert_remnant(nb, 2, "accepted by the person")


def test_closing_lines_wrap_between_words(open_notebook: OpenNotebook) -> None:
    """JupyterLab styles plain-text output `word-break: break-all`: the call's closing line (shown once
    the call ends) wraps between words instead, and is still text."""
    from playwright.sync_api import expect

    nb = connected(open_notebook, CONNECT_IN_PROCESS, 'r = await srv.call_tool("weather")\nr.is_error')
    nb.run(1)
    city_form(nb, 1).get_by_role("button", name="Decline").click()
    nb.wait_done(1)
    line = nb.output(1).locator("pre", has_text="declined by the person")
    expect(line).to_have_count(1)
    style = line.evaluate("(e) => [getComputedStyle(e).wordBreak, getComputedStyle(e).whiteSpace]")
    assert style == ["normal", "pre-wrap"]


def test_a_first_question_shown_late_on_a_page_still_asks(open_notebook: OpenNotebook) -> None:
    """The first question in a kernel, its view made 4 s late (its `output=` displayed only then): the page
    made its model at once, so the kernel knows a page is there and does not decline it as headless (1.5 s
    where no page ever spoke: a first question on a loaded machine, drawn slowly, was declined so in CI)."""
    nb = connected(
        open_notebook,
        CONNECT_IN_PROCESS,
        "import ipywidgets as W\nout = W.Output()\ncall = srv.call_tool_background('weather', output=out)",
        "import time\ntime.sleep(4)\nprint(call.done())",
        "out",
        "print(call.result().structured_content)",
    )
    nb.run(1)
    nb.wait_done(1)
    nb.run(2)
    assert printed(nb, 2) is False, "the unseen first question was declined as headless"
    nb.run(3)
    form = city_form(nb, 3)
    form.get_by_label("City").press_sequentially("Lima")
    form.get_by_role("button", name="Accept").click()
    nb.run(4)
    assert without_weather(printed(nb, 4)) == weather("Lima", "accept")
