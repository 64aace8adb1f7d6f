"""A prompt form's completions in real JupyterLab, with a keyboard: type into a field, the server's values
show under it ("2" of them), arrows move, Enter picks (and never runs the form), Escape closes. Saves
docs/screenshots/prompt-suggestions-{light,dark}.png."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .gallery import layout_problems
from .harness import DARK_THEME, LIGHT_THEME, UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

CONNECT = """\
import mcp_types
import mcp_widgets as mw
from mcp.server.mcpserver import MCPServer
staff = MCPServer("staff")
TEAMS = {"Engineering": ["Alice", "Bob", "Charlie"], "Sales": ["David", "Eve"], "Support": ["Frank", "Grace"]}

@staff.prompt(name="team", description="Write to someone in a team.")
def team(department: str, name: str) -> str:
    return f"Hello {name} of {department}!"

@staff.completion()
async def complete(ref, argument, context):
    given = dict(getattr(context, "arguments", None) or {})
    options = list(TEAMS) if argument.name == "department" else TEAMS.get(given.get("department"), [])
    found = [o for o in options if o.lower().startswith(argument.value.lower())]
    return mcp_types.Completion(values=found, total=len(found), has_more=False)

srv = await mw.connect(staff, name="staff")
"""
# A resource template with the same two variables (the server completes them the same way).
TEMPLATE = """
@staff.resource("staff://{department}/{name}", name="staff", title="A person")
def person(department: str, name: str) -> str:
    return f"{name} of {department}"

await srv.list_resources()
"""


def test_a_person_picks_a_suggestion_with_the_keyboard(
    open_notebook: OpenNotebook, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([CONNECT, 'srv.prompt_form("team")'])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    nb.run(1)
    form = nb.output(1).locator(".mcp-widgets-prompt-form")
    run = form.get_by_role("button", name="Run")
    expect(run).to_be_visible()
    department = form.get_by_label("Department *")
    name = form.get_by_label("Name *")
    lists = form.locator(".mcp-widgets-suggest")
    stdout = form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')

    # Name first, so that Run is enabled when Enter picks a department below.
    name.click()
    name.press_sequentially("Zed")
    expect(lists.nth(1)).to_be_hidden()  # no department yet: no names
    department.click()
    started = time.perf_counter()
    department.press_sequentially("S")
    shown = lists.nth(0)
    expect(shown).to_be_visible()
    took = time.perf_counter() - started
    print(f"keystroke to suggestions shown (browser): {took * 1000:.0f} ms")
    items = shown.get_by_role("option")
    expect(items).to_have_text(["Sales", "Support"])
    expect(shown.locator(".mcp-widgets-suggest-count")).to_have_text("2 suggestions")
    expect(department).to_have_attribute("aria-expanded", "true")
    department.press("ArrowDown")
    department.press("ArrowDown")
    expect(items.nth(1)).to_have_attribute("aria-selected", "true")
    department.press("ArrowUp")
    department.press("ArrowDown")
    expect(items.nth(1)).to_have_class("mcp-widgets-suggest-item mcp-widgets-suggest-active")
    expect(run).to_be_enabled()
    department.press("Enter")
    expect(department).to_have_value("Support")
    expect(shown).to_be_hidden()
    expect(department).to_be_focused()
    nb.page.wait_for_timeout(500)
    expect(stdout).to_have_count(0)  # Enter picked: the prompt was not run

    # Escape closes the list and leaves the value as typed (and the form, the notebook, as they were).
    name.click()
    name.press("Control+a")
    name.press_sequentially("F")
    names = lists.nth(1)
    expect(names.get_by_role("option")).to_have_text(["Frank"])
    name.press("Escape")
    expect(names).to_be_hidden()
    expect(name).to_have_value("F")
    expect(name).to_be_focused()
    nb.page.wait_for_timeout(300)
    expect(stdout).to_have_count(0)

    # The pictures: the list open under Department, in both themes.
    nb.page.mouse.move(0, 0)
    try:
        for theme, suffix in ((LIGHT_THEME, "light"), (DARK_THEME, "dark")):
            nb.set_theme(theme)
            department.click()
            department.press("Control+a")
            department.press("Backspace")
            department.press_sequentially("S")
            expect(shown.get_by_role("option")).to_have_text(["Sales", "Support"])
            department.press("ArrowDown")
            expect(shown.get_by_role("option").nth(0)).to_have_attribute("aria-selected", "true")
            assert layout_problems(form) == []
            path = screenshots / f"prompt-suggestions-{suffix}.png"
            form.screenshot(path=str(path), animations="disabled")
            assert path.stat().st_size > 5_000
            department.press("Escape")
    finally:
        nb.set_theme(LIGHT_THEME)

    # Escape emptied the list: ArrowDown asks again for what the field holds.
    department.click()
    department.press("ArrowDown")
    expect(shown.get_by_role("option")).to_have_text(["Sales", "Support"])
    department.press("Escape")

    # A click picks too (the input keeps the focus).
    department.press("Control+a")
    department.press_sequentially("Su")
    shown.get_by_role("option", name="Support").click()
    expect(department).to_have_value("Support")
    expect(shown).to_be_hidden()
    expect(department).to_be_focused()

    # Picked with the keyboard, the form runs with it when the person asks.
    department.click()
    department.press("Control+a")
    department.press_sequentially("Sa")
    expect(shown.get_by_role("option")).to_have_text(["Sales"])
    department.press("ArrowDown")
    department.press("Enter")
    expect(department).to_have_value("Sales")
    run.click()
    expect(stdout).to_contain_text("Hello F of Sales!")


@pytest.mark.parametrize("where", ["prompt", "template"])
def test_the_first_click_on_run_runs_with_the_suggestions_open(
    open_notebook: OpenNotebook, where: str
) -> None:
    """The list is open under the field the person typed in; one click on Run (Read) runs: the list closed
    on the mouse's press and moved the button up under it, and the click landed on nothing."""
    from playwright.sync_api import expect

    show = 'srv.prompt_form("team")' if where == "prompt" else 'srv.template_form("staff")'
    nb = open_notebook([CONNECT + TEMPLATE, show])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    nb.run(1)
    form = nb.output(1).locator(".mcp-widgets-prompt-form, .mcp-widgets-template-form")
    button = form.get_by_role("button", name="Run" if where == "prompt" else "Read")
    expect(button).to_be_visible()
    form.get_by_label("Name *").fill("Zed")
    department = form.get_by_label("Department *")
    department.click()
    department.press_sequentially("S")
    shown = form.locator(".mcp-widgets-suggest").nth(0)
    expect(shown.get_by_role("option")).to_have_text(["Sales", "Support"])
    expect(button).to_be_enabled()
    button.click()  # once
    stdout = form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text("Hello Zed of S!" if where == "prompt" else "Zed of S")
    expect(shown).to_be_hidden()  # and the list closed after the click


ODD = """\
import mcp_types
import mcp_widgets as mw
from mcp.server.mcpserver import MCPServer
odd = MCPServer("odd")

@odd.prompt(name="memo", description="One text argument.")
def memo(text: str) -> str:
    return f"memo of {len(text)} characters"

@odd.completion()
async def complete(ref, argument, context):
    return mcp_types.Completion(values=["two  spaces", "tab\\there", "bidi\\u202eevil", "x" * 3000])

srv = await mw.connect(odd, name="odd")
"""


def test_values_show_clipped_and_a_click_inserts_the_value_itself(
    open_notebook: OpenNotebook, screenshots: Path
) -> None:
    """The list draws each value on one line (its two spaces kept, a tab and a bidi override as visible
    escapes, 3,000 characters shortened); a click on the long one puts all 3,000 in the field."""
    from playwright.sync_api import expect

    nb = open_notebook([ODD, 'srv.prompt_form("memo")'])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    nb.run(1)
    form = nb.output(1).locator(".mcp-widgets-prompt-form")
    text = form.get_by_label("Text *")
    text.click()
    text.press_sequentially("a")
    shown = form.locator(".mcp-widgets-suggest")
    items = shown.get_by_role("option")
    expect(items).to_have_text(
        ["two  spaces", "tab\\x09here", "bidiU+202Eevil", "x" * 200 + "… (2800 more characters)"],
        use_inner_text=True,
    )
    nb.page.mouse.move(0, 0)
    try:
        for theme, suffix in ((LIGHT_THEME, "light"), (DARK_THEME, "dark")):
            nb.set_theme(theme)
            text.press("ArrowDown")  # the first value highlighted
            assert layout_problems(form) == []
            path = screenshots / f"prompt-suggestions-odd-{suffix}.png"
            form.screenshot(path=str(path), animations="disabled")
            text.press("ArrowUp")
    finally:
        nb.set_theme(LIGHT_THEME)
    items.nth(3).click()
    expect(shown).to_be_hidden()
    expect(text).to_have_value("x" * 3000)
    form.get_by_role("button", name="Run").click()
    stdout = form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text("memo of 3000 characters")
