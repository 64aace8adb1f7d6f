"""The explorer in real JupyterLab (a cell ending in `srv`): sections opened by keyboard (the section buttons
one Tab stop, arrows between them, Enter) and by click; the lists read at the explorer's width, each row's
whole text its tooltip; the open section and the focus ring at least 3:1 against the explorer in both themes;
a tool's form opened from the list by Enter and run; a Markdown resource drawn on request from text nodes
only, nothing fetched; the server's instructions shown as literal text; the tool's status line on the
explorer's own background in both themes. Saves docs/screenshots/explorer-{light,dark}.png."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.servers.explored import LONG_LINES

from .gallery import contrast, layout_problems, shoot
from .harness import DARK_THEME, LIGHT_THEME, UI_MS, NotebookPage

pytestmark = pytest.mark.browser
LONG_DESCRIPTION = "\n".join(LONG_LINES)

OpenNotebook = Callable[..., NotebookPage]
ROOT = Path(__file__).resolve().parents[2]

CONNECT = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
import mcp_widgets as mw
from tests.servers.explored import build_server
srv = await mw.connect(build_server(200), name="explored")
"""

SHOWN_BACKGROUND = """e => {
  for (let n = e; n; n = n.parentElement) {
    const bg = getComputedStyle(n).backgroundColor;
    if (bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") return bg;
  }
  return null;
}"""
"""The colour behind an element: its own background, else the nearest ancestor's that paints one."""
TAB_STOPS = "nav => Array.from(nav.querySelectorAll('button')).filter((b) => b.tabIndex >= 0).length"
"""How many of the section buttons Tab stops at."""
LIST_LOOK = """s => [s.getBoundingClientRect().width,
  s.closest('.mcp-widgets-explorer').getBoundingClientRect().width, getComputedStyle(s).fontFamily]"""
RING = "b => [parseFloat(getComputedStyle(b).outlineWidth), getComputedStyle(b).outlineColor]"
"""A focused button's focus ring: its width in px and its colour."""


def test_a_person_explores_a_server_by_keyboard_and_by_click(
    open_notebook: OpenNotebook, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([CONNECT, "srv"])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    nb.run(1)
    explorer = nb.output(1).locator(".mcp-widgets-explorer")
    expect(explorer).to_be_visible()
    said = explorer.get_by_text("Instructions: Start with tool_0.", exact=False)
    expect(said).to_have_text(
        "Instructions: Start with tool_0. Costs $5 and $10 \\x1b[31mred\\x1b[0m <b>bold</b>."
    )  # literal: no math, no markup, the escape visible
    expect(explorer.locator("mjx-container, b")).to_have_count(0)
    nav = explorer.locator(".mcp-widgets-explorer-nav")
    expect(nav.get_by_role("button")).to_have_count(6)
    expect(explorer.locator("select")).to_have_count(0)  # nothing built before a section is opened

    # by keyboard: focus the first section button, ArrowRight to Prompts, Enter opens it
    tools_button = nav.get_by_role("button", name="Tools (200)")
    tools_button.focus()
    nb.page.keyboard.press("ArrowRight")
    prompts_button = nav.get_by_role("button", name="Prompts (1)")
    expect(prompts_button).to_be_focused()
    nb.page.keyboard.press("Enter")
    lists = explorer.locator(".mcp-widgets-explorer-list select")
    expect(lists).to_have_count(1)
    expect(lists.first.locator("option")).to_have_count(1)
    nb.page.keyboard.press("ArrowLeft")
    expect(tools_button).to_be_focused()
    nb.page.keyboard.press("Enter")
    tools = explorer.locator(".mcp-widgets-explorer-list select").first
    expect(tools.locator("option")).to_have_count(200)
    # The row of section buttons is one Tab stop (the open section's button): Tab goes from it straight to
    # the list and Shift+Tab back to it
    assert nav.evaluate(TAB_STOPS) == 1
    nb.page.keyboard.press("Tab")
    expect(tools).to_be_focused()
    nb.page.keyboard.press("Shift+Tab")
    expect(tools_button).to_be_focused()
    nb.page.keyboard.press("Tab")
    expect(tools).to_be_focused()
    # The list reads at the explorer's width in the notebook's UI font; a long description is cut after a
    # word, and the row's whole text (every line of the description) is its tooltip
    width, room, font = tools.evaluate(LIST_LOOK)
    assert width >= 0.75 * room, (width, room)
    assert "mono" not in font.lower(), font
    long_row = tools.locator("option").nth(1)
    shown = long_row.inner_text().replace("\xa0", " ").strip()  # the stock list: no-break spaces
    assert shown.startswith("tool_1: Tool number 1: looks a city up, then") and shown.endswith("…"), shown
    assert shown[-2].isalpha() and "more character" not in shown, shown
    expect(long_row).to_have_attribute("title", "tool_1\n" + LONG_DESCRIPTION)
    # arrows move the choice (not the notebook's cells), Enter opens the tool the list shows chosen (tool_0 is
    # chosen at first; two quick arrows: tool_2, though the front end may still hold the list's last change
    # when Enter goes)
    nb.page.keyboard.press("ArrowDown")
    nb.page.keyboard.press("ArrowDown")
    nb.page.keyboard.press("Enter")
    form = explorer.locator(".mcp-widgets-tool-form")
    expect(form.get_by_text("Tool tool_2 on explored", exact=True)).to_be_visible()
    expect(nb.cell(1)).to_have_class(re.compile("jp-mod-active"))  # the arrows moved no cell selection
    form.get_by_label("City *").fill("Oslo")
    form.get_by_role("button", name="Run").click()
    expect(form.locator('[data-mime-type="application/vnd.jupyter.stdout"]')).to_contain_text(
        "tool_2: Oslo for 1 days"
    )

    # by click: Resources, choose the note, Read
    explorer.locator(".mcp-widgets-explorer-nav").get_by_role("button", name="Resources (2)").click()
    resources = explorer.locator(".mcp-widgets-explorer-list select").locator("visible=true")
    expect(resources).to_have_count(1)
    resources.select_option(index=0)
    explorer.get_by_role("button", name="Read").click()
    expect(explorer.locator('[data-mime-type="application/vnd.jupyter.stdout"]').last).to_contain_text(
        "the readme says $x$ hello"
    )
    # the Markdown guide: its source as text, and on a click drawn as Markdown from text nodes only (math,
    # raw HTML as text; the link and the image written out with their URLs, nothing fetched or clickable)
    requested: list[str] = []
    nb.page.on("request", lambda request: requested.append(request.url))
    resources.select_option(index=1)
    explorer.get_by_role("button", name="Read").click()
    expect(explorer.locator('[data-mime-type="application/vnd.jupyter.stdout"]').last).to_contain_text(
        "# Guide to $x$"
    )
    show = explorer.get_by_role("button", name="Show as Markdown")
    show.click()
    drawn = explorer.locator(".mcp-widgets-markdown")
    expect(drawn.locator("h1")).to_have_text("Guide to $x$")
    expect(drawn.locator("strong")).to_have_text("this")
    expect(drawn.locator("table td")).to_have_text(["1", "2"])
    expect(drawn.locator(".mcp-widgets-md-url")).to_have_text(" (https://docs.example.org/start?from=guide)")
    expect(drawn.get_by_text("[image: a logo] (https://images.example.org/logo.png)")).to_be_visible()
    raw = '<b>raw</b> <img src=x onerror="window.__pwned=1">'
    expect(drawn.get_by_text(raw, exact=False)).to_be_visible()
    expect(drawn.locator("a, img, b, script, mjx-container")).to_have_count(0)
    assert nb.page.evaluate("typeof window.__pwned") == "undefined"
    assert not [url for url in requested if "example.org" in url]
    expect(explorer.get_by_role("button", name="Hide Markdown")).to_be_visible()
    nav.get_by_role("button", name="Wire").click()
    expect(explorer.get_by_text("The wire of explored")).to_be_visible()
    nav.get_by_role("button", name="History").click()
    expect(explorer.locator("table.mcp-widgets-history")).to_be_visible()
    nav.get_by_role("button", name="Tools (200)").click()
    expect(form).to_be_visible()  # kept while the explorer lives
    expect(tools).to_have_js_property("selectedIndex", 2)  # the list still shows the tool that was opened

    status = form.get_by_text("tool 'tool_2' on 'explored': done", exact=True)
    expect(status).to_be_visible()
    nb.page.mouse.move(0, 0)
    try:
        for theme, suffix in ((LIGHT_THEME, "light"), (DARK_THEME, "dark")):
            nb.set_theme(theme)
            assert layout_problems(explorer) == []
            # the open section and the focused section button stand out: at least 3:1 against the explorer
            background = explorer.evaluate(SHOWN_BACKGROUND)
            open_section = nav.locator("button.mod-active")
            assert contrast(open_section.evaluate(SHOWN_BACKGROUND), background) >= 3, suffix
            assert (
                contrast(
                    open_section.evaluate("e => getComputedStyle(e).color"),
                    open_section.evaluate(SHOWN_BACKGROUND),
                )
                >= 4.5
            ), suffix
            tools_button.focus()
            nb.page.keyboard.press("ArrowRight")  # focus by keyboard: the ring a keyboard user sees
            ring_width, ring_colour = nav.get_by_role("button", name="Prompts (1)").evaluate(RING)
            assert ring_width >= 2, (suffix, ring_width)
            assert contrast(ring_colour, background) >= 3, (suffix, ring_colour, background)
            nb.page.keyboard.press("ArrowLeft")
            nb.page.mouse.move(0, 0)
            # the tool's status line reads on the explorer's own background, no band of the page's colour
            # behind it (JupyterLab paints a rendered-HTML <pre> with --jp-layout-color0)
            assert status.evaluate(SHOWN_BACKGROUND) == explorer.evaluate(SHOWN_BACKGROUND), suffix
            path = screenshots / f"explorer-{suffix}.png"
            explorer.screenshot(path=str(path), animations="disabled")
            assert path.stat().st_size > 5_000
            nav.get_by_role("button", name="Resources (2)").click()  # the drawn guide, kept with its section
            shoot(nb, explorer.locator(".mcp-widgets-markdown-offer"), "explorer-markdown")
            nav.get_by_role("button", name="Tools (200)").click()
    finally:
        nb.set_theme(LIGHT_THEME)


LONG = """\
from mcp.server.mcpserver import MCPServer
lines = [f"Step {i}: call tool_{i} with care." for i in range(35)]
server = MCPServer("long", instructions="\\n".join(lines))
def hello(who: str = "you") -> str:
    return f"hello {who}"
server.tool(description="Says hello.")(hello)
long = await mw.connect(server, name="long")
long.tools  # listed before the close
long
"""


def test_long_instructions_fold_and_a_closed_server_is_said_so(open_notebook: OpenNotebook) -> None:
    """35 lines of instructions show three until "Show all"; once the server is closed, the explorer says
    so under its title and its Open button is disabled. Light and dark, in build/gallery."""
    from playwright.sync_api import expect

    from .gallery import shoot_in_both_themes

    nb = open_notebook(
        [CONNECT, LONG, "explorer = long.explore()\nexplorer.show('Tools')\nexplorer", "long.close()"]
    )
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(1)
    explorer = nb.output(1).locator(".mcp-widgets-explorer")
    said = explorer.get_by_text("Instructions: Step 0", exact=False)
    expect(said).to_contain_text("Step 2: call tool_2 with care. …")
    expect(said).not_to_contain_text("Step 3")
    show_all = explorer.get_by_role("button", name="Show all instructions (35 lines)")
    show_all.click()
    expect(said).to_contain_text("Step 34: call tool_34 with care.")
    explorer.get_by_role("button", name="Show fewer").click()
    expect(said).not_to_contain_text("Step 3:")
    nb.run(2)
    second = nb.output(2).locator(".mcp-widgets-explorer")
    expect(second.get_by_role("button", name="Open form")).to_be_enabled()
    nb.run(3)
    nb.wait_done(3)
    expect(second.get_by_text("⚠ Not connected: the connection was closed.", exact=False)).to_be_visible()
    expect(second.get_by_role("button", name="Open form")).to_be_disabled()
    shoot_in_both_themes(nb, {"explorer-folded": explorer, "explorer-closed": second})
