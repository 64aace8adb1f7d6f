"""A form in a real JupyterLab, by keyboard, saved with widget state on: server text stays text, Tab moves
through the fields, a range error comes and goes, Enter accepts and Escape cancels an untouched form, each
leaves one line; a save while a form is pending keeps what was typed in it (docs/privacy.md says so), a save
after the answer keeps nothing typed, only the form's box and its line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import OpenNotebook
from .harness import UI_MS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"
CANARY = "Paris-canary-41"
FORM = f"""
from mcp_widgets.widgets import ElicitationForm
form = ElicitationForm({HOSTILE + " " + "A long message from the server. " * 8!r}, {{
    "type": "object",
    "properties": {{
        "name": {{"type": "string", "title": {HOSTILE!r}, "description": {HOSTILE!r}}},
        "age": {{"type": "integer", "minimum": 0, "maximum": 150}},
        "city": {{"type": "string", "title": "City"}},
    }},
    "required": ["name"],
}}, server="shop")
form
"""
CELLS = [
    FORM,
    "print('RESULT', form.state.value, form.result.model_dump_json(exclude_none=True))",
    'ESCAPE = {"type": "object", "properties": {"x": {"type": "string"}}}\n'
    'form2 = ElicitationForm("Escape me", ESCAPE, server="esc")\nform2',
    "print('RESULT2', form2.state.value, form2.outcome.describe())",
]


def saved_state(nb: Any) -> str:
    """Save the notebook (as its menu does) and return the widget state written into the file."""
    from playwright.sync_api import expect

    nb.run_command("docmanager:save")  # resolves once the file is written
    expect(nb.page.locator(".jp-mod-dirty")).to_have_count(0, timeout=UI_MS)
    saved = json.loads((nb.server.root / nb.path).read_text())
    return json.dumps(saved.get("metadata", {}).get("widgets", {}))


def own_models(state: str) -> list[str]:
    """The models of a saved widget state but the Layouts and Styles stock controls share."""
    saved = json.loads(state)["application/vnd.jupyter.widget-state+json"]["state"].values()
    return [m["model_name"] for m in saved if not m["model_name"].endswith(("LayoutModel", "StyleModel"))]


@pytest.mark.usefixtures("saving_widget_state")
def test_keyboard_plain_text_one_line_and_saving(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = open_notebook(CELLS)
    page = nb.page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    def focused() -> str:
        return str(page.evaluate("() => document.activeElement.closest('.mcp-widgets-field')?.innerText"))

    nb.run(0)
    output = nb.output(0)
    expect(output.get_by_role("button", name="Accept")).to_be_visible(timeout=UI_MS * 4)
    # A form shown by a cell that has ended takes no focus by itself (docs/keyboard.md): a click.
    output.locator(".mcp-widgets-first input").click()
    assert output.locator("img, script").count() == 0
    assert output.get_by_text("<img src=x onerror=alert(1)>", exact=False).count() >= 2
    page.keyboard.type("Ada")
    page.keyboard.press("Tab")
    assert "age" in focused()
    page.keyboard.type("5000")
    expect(output.get_by_text("⚠ Error:", exact=False)).to_be_visible()
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    page.keyboard.press("Tab")
    assert "City" in focused()
    page.keyboard.type(CANARY)
    expect(output.locator(".mcp-widgets-last input")).to_have_value(CANARY)

    nb.prompt(1).click()  # focus off the inputs, which keep the notebook's keys to themselves
    pending_save_keeps_typed = CANARY in saved_state(nb)

    output.locator(".mcp-widgets-last input").click()
    page.keyboard.press("Enter")
    expect(output.get_by_text("Request from shop: accepted by the person")).to_be_visible()
    nb.prompt(1).click()
    # The answered form's inner models close as the kernel handles the click: saved once the kernel is
    # idle again (every close sent), and again while the page is still closing them (a loaded machine).
    nb.wait_idle()
    state = saved_state(nb)
    for _ in range(20):
        if sorted(own_models(state)) == ["AnyModel"]:
            break
        page.wait_for_timeout(250)
        state = saved_state(nb)
    nb.run(1)
    expect(nb.stdout(1)).to_contain_text("RESULT accepted")
    result = nb.stdout(1).inner_text().strip()

    nb.run(2)
    expect(nb.output(2).get_by_text("Request from esc").first).to_be_visible(timeout=UI_MS * 4)
    # The person's own click, then Escape cancels an untouched form.
    nb.output(2).locator(".mcp-widgets-first input").click()
    page.keyboard.press("Escape")
    expect(nb.output(2).get_by_text("Request from esc: cancelled by the person")).to_be_visible()
    nb.run(3)
    expect(nb.stdout(3)).to_contain_text("RESULT2 cancelled")

    assert json.loads(result.split(" ", 2)[2]) == {
        "action": "accept",
        "content": {"name": "Ada", "age": 50, "city": CANARY},
    }
    # What is typed travels as messages, never state: not even a pending form's saved state holds it
    # (docs/privacy.md).
    assert pending_save_keeps_typed is False
    assert CANARY not in state
    # The form, one model holding its line; the rest are the shared Layouts (no text in them).
    assert sorted(own_models(state)) == ["AnyModel"]
    assert dialogs == []
