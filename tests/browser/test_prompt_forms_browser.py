"""A prompt form and a resource-template form in real JupyterLab as a person uses them: type the
arguments (Run waits for the required one), run, read the messages; type a template's variables, watch the
URI it will read, read the resource. Saves docs/screenshots/prompt-form-{light,dark}.png and
template-form-{light,dark}.png."""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .gallery import layout_problems
from .harness import DARK_THEME, LIGHT_THEME, UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]


def _png(size: int = 24) -> str:
    """A square PNG of one colour (for a prompt message's image)."""
    row = b"\x00" + bytes((66, 133, 244)) * size
    raw = zlib.compress(row * size)
    chunk = lambda kind, data: (  # noqa: E731
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    )
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


PIXEL = _png()

CONNECT = f"""\
import mcp_types
import mcp_widgets as mw
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
notes = MCPServer("notes")

@notes.tool(description="A tool that shares the prompt's name.")
def greet(who: str) -> str:
    return "the tool, not the prompt"

@notes.prompt(name="greet", title="Greeting", description="Ask the model to greet someone.")
def greet_prompt(who: str, mood: str = "warm") -> list:
    image = mcp_types.ImageContent(type="image", data={PIXEL!r}, mime_type="image/png")
    return [UserMessage(f"Say hello to {{who}}, {{mood}}ly."), AssistantMessage(image)]

@notes.resource("notes://{{topic}}/{{+rest}}{{?lang}}", name="Notes", title="Notes by topic")
def read_notes(topic: str, rest: str, lang: str = "en") -> str:
    return f"Notes on {{topic}} under {{rest}} in {{lang}}."

srv = await mw.connect(notes, name="notes")
"""


def form_in(nb: NotebookPage, index: int, css: str, button: str) -> Any:
    from playwright.sync_api import expect

    nb.run(index)
    form = nb.output(index).locator(css)
    expect(form.get_by_role("button", name=button)).to_be_visible()
    return form


def shots(nb: NotebookPage, form: Any, screenshots: Path, name: str) -> None:
    nb.page.mouse.move(0, 0)  # no hover effects in the pictures
    try:
        for theme, suffix in ((LIGHT_THEME, "light"), (DARK_THEME, "dark")):
            nb.set_theme(theme)
            assert layout_problems(form) == []  # nothing overflows, no button label cut
            path = screenshots / f"{name}-{suffix}.png"
            form.screenshot(path=str(path), animations="disabled")
            assert path.stat().st_size > 5_000
    finally:
        nb.set_theme(LIGHT_THEME)  # the theme is a user setting: leave it as the next test expects


def test_a_person_fills_a_prompt_form_and_a_template_form(
    open_notebook: OpenNotebook, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook(
        [CONNECT, 'srv.prompt_form("greet")', 'srv.template_form("notes://{topic}/{+rest}{?lang}")']
    )
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()

    prompt = form_in(nb, 1, ".mcp-widgets-prompt-form", "Run")
    expect(prompt.get_by_text("Greeting — prompt greet on notes", exact=True)).to_be_visible()
    run = prompt.get_by_role("button", name="Run")
    expect(run).to_be_disabled()  # "who" is required
    # and the form says so next to the button, not only in its tooltip
    why = prompt.get_by_text("To run: fill in Who", exact=True)
    expect(why).to_be_visible()
    run_box, why_box = run.bounding_box(), why.bounding_box()
    assert run_box is not None and why_box is not None
    assert why_box["x"] > run_box["x"] + run_box["width"]  # to its right, on its line
    assert why_box["height"] < run_box["height"]  # a line of text, not stretched to the row (text on top)
    assert abs((why_box["y"] + why_box["height"] / 2) - (run_box["y"] + run_box["height"] / 2)) < 4
    shots(nb, prompt, screenshots, "prompt-form-run-why")
    prompt.get_by_label("Who *").fill("Ada")
    prompt.get_by_label("Mood", exact=True).fill("cheerful")
    expect(run).to_be_enabled()
    expect(why).to_be_hidden()
    run.click()
    stdout = prompt.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text("[user]\nSay hello to Ada, cheerfully.")
    expect(stdout).to_contain_text("[assistant]\n[image: image/png")
    expect(prompt.locator('[data-mime-type="image/png"] img')).to_have_count(1)  # the image itself, under it
    expect(stdout).not_to_contain_text("the tool, not the prompt")
    shots(nb, prompt, screenshots, "prompt-form")

    template = form_in(nb, 2, ".mcp-widgets-template-form", "Read")
    read = template.get_by_role("button", name="Read")
    expect(read).to_be_disabled()
    expect(template.get_by_text("Reads: (fill in Topic, Rest)", exact=True)).to_be_visible()
    expect(template.get_by_text("To read: fill in Topic, Rest", exact=True)).to_be_visible()
    template.get_by_label("Topic *").fill("tea & cake")
    template.get_by_label("Rest *").fill("2026/winter")
    expect(template.get_by_text("Reads: notes://tea%20%26%20cake/2026/winter", exact=True)).to_be_visible()
    expect(read).to_be_enabled()
    read.click()
    stdout = template.locator('[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(stdout).to_contain_text("Resource: notes://tea%20%26%20cake/2026/winter (text/plain)")
    expect(stdout).to_contain_text("Notes on tea & cake under 2026/winter in en.")
    template.get_by_label("Lang", exact=True).fill("nb")
    expect(
        template.get_by_text("Reads: notes://tea%20%26%20cake/2026/winter?lang=nb", exact=True)
    ).to_be_visible()
    read.click()
    expect(stdout).to_contain_text("in nb.")
    expect(stdout).not_to_contain_text("in en.")
    shots(nb, template, screenshots, "template-form")
