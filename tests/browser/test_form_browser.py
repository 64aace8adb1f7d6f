"""The form widget in a real JupyterLab as a person uses it: mouse, keyboard, hostile server text."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .gallery import layout_problems
from .harness import DARK_THEME, LIGHT_THEME, UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'

IMPORT_CELL = "from mcp_widgets.widgets._form import ElicitationForm"
# Shows a form and prints what the server would receive. Top-level await works on ipykernel 7.4.
FORM_CELL = """\
HOSTILE = {hostile!r}
form = ElicitationForm({message}, {schema!r}, server="demo-server")
display(form)
result = await form.wait()
print(result.model_dump_json())
"""

# Two front-end facts these tests lean on. ipywidgets' front end sends a control's next update only once
# the kernel said "idle" for its previous one; while a cell waits, `kernel/` publishes that status for the
# comm messages it handles (without it, typing "Ada" reached the kernel as "A"). The one-model form sends
# what is typed and the press as custom messages, which go out in order: Accept cannot overtake a keystroke.
HOSTILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your name " + HOSTILE, "minLength": 2},
        "email": {"type": "string", "format": "email", "title": "Email " + HOSTILE},
        "age": {"type": "integer", "title": "Age", "minimum": 18, "maximum": 130},
        "subscribe": {"type": "boolean", "title": "Subscribe to news", "default": False},
        "colour": {
            "type": "string",
            "title": "Colour",
            "oneOf": [
                {"const": "r", "title": "Red " + HOSTILE},
                {"const": "g", "title": "Green"},
                {"const": "b", "title": "Blue"},
            ],
        },
        "size": {"type": "string", "title": "Size", "enum": ["s", "m", "l", "xl", "xxl", "xxxl"]},
        "tags": {"type": "array", "title": "Tags", "items": {"enum": ["alpha", "beta", "gamma"]}},
        "day": {"type": "string", "format": "date", "title": "Day"},
    },
    "required": ["name", "email"],
}
HOSTILE_CONTENT = {
    "name": "Ada",
    "email": "ada@example.com",
    "age": 42,
    "subscribe": True,
    "colour": "g",
    "size": "xl",
    "tags": ["alpha", "gamma"],
    "day": "2026-12-24",
}

# A realistic request, for the README's screenshots.
BOOKING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "As on your passport", "minLength": 2},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 8, "default": 2},
        "arrival": {"type": "string", "format": "date", "title": "Arrival"},
        "room": {
            "type": "string",
            "title": "Room",
            "oneOf": [
                {"const": "std", "title": "Standard"},
                {"const": "sea", "title": "Sea view"},
                {"const": "suite", "title": "Suite"},
            ],
        },
        "extras": {
            "type": "array",
            "title": "Extras",
            "items": {
                "anyOf": [{"const": "bf", "title": "Breakfast"}, {"const": "park", "title": "Parking"}]
            },
        },
        "newsletter": {"type": "boolean", "title": "Send me offers", "default": False},
    },
    "required": ["name", "email", "arrival"],
}

KEYBOARD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "first": {"type": "string", "title": "First"},
        "middle": {"type": "integer", "title": "Middle"},
        "last": {"type": "string", "title": "Last"},
    },
    "required": ["first"],
}


def form_cell(schema: dict[str, Any], message: str = "'Please fill this in ' + HOSTILE") -> str:
    """A form cell; `message` is a Python expression (HOSTILE is defined in the cell)."""
    return FORM_CELL.format(hostile=HOSTILE, message=message, schema=schema)


def open_forms(open_notebook: OpenNotebook, *forms: str) -> NotebookPage:
    """A fresh notebook: cell 0 imports the package (timed apart), cells 1.. are `forms`; cell 0 is run."""
    nb = open_notebook([IMPORT_CELL, *forms])
    started = nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    print(f"[import cell {time.perf_counter() - started:.2f} s]", end=" ")
    return nb


def show_form(nb: NotebookPage, index: int) -> Any:
    """Run form cell `index`, wait until the form is visible (prints how long that took); its output area."""
    from playwright.sync_api import expect

    started = nb.run(index)
    out = nb.output(index)
    expect(out.get_by_text("Request from demo-server", exact=True)).to_be_visible()
    print(f"[run to form visible {time.perf_counter() - started:.2f} s]", end=" ")
    return out


def printed_result(nb: NotebookPage, index: int) -> dict[str, Any]:
    """The JSON a form cell printed once its form resolved (waits for the cell to finish)."""
    from playwright.sync_api import expect

    nb.wait_done(index)
    expect(nb.stdout(index)).to_have_count(1)
    result: dict[str, Any] = json.loads(nb.stdout(index).inner_text())
    return result


def assert_left_one_line(nb: NotebookPage, index: int, ending: str) -> None:
    """After it resolves, the form is one plain line (who asked, how it ended) and nothing to type into."""
    from playwright.sync_api import expect

    out = nb.output(index)
    expect(out.locator(".mcp-widgets-question")).to_have_text([f"Request from demo-server: {ending}"])
    expect(out.locator("input, select, textarea, button")).to_have_count(0)


def assert_not_pwned(nb: NotebookPage) -> None:
    """No script from server text ran, and none of its markup became elements."""
    assert nb.page.evaluate("typeof window.__pwned") == "undefined"
    assert nb.page.locator(".jp-OutputArea img, .jp-OutputArea script").count() == 0


def test_hostile_text_is_literal_and_a_person_fills_every_control_and_accepts(
    open_notebook: OpenNotebook,
) -> None:
    from playwright.sync_api import expect

    nb = open_forms(open_notebook, form_cell(HOSTILE_SCHEMA))
    out = show_form(nb, 1)

    # Server text (message, description, title, option title) shows as literal text, and none of it runs.
    for text in ("Please fill this in " + HOSTILE, "Your name " + HOSTILE):
        expect(out.get_by_text(text, exact=True)).to_be_visible()
    expect(out.get_by_label("Email " + HOSTILE + " *", exact=True)).to_be_visible()  # its title labels it
    expect(out.get_by_role("radio", name="Red " + HOSTILE)).to_have_count(1)
    assert_not_pwned(nb)

    accept = out.get_by_role("button", name="Accept")
    expect(accept).to_be_disabled()  # required fields are empty
    out.get_by_label("Name").fill("Ada")
    out.get_by_label("Email").fill("ada@example.com")
    out.get_by_label("Age").fill("42")
    out.get_by_label("Subscribe to news").check()
    out.get_by_label("Green").check()
    out.get_by_label("Size").select_option("xl")
    for tag in ("alpha", "gamma"):  # a few choices: a checkbox each
        out.get_by_role("checkbox", name=tag).check()
    out.get_by_label("Day").fill("2026-12-24")
    expect(out.get_by_text("⚠ Error", exact=False)).to_have_count(0)
    expect(accept).to_be_enabled()
    accept.click()

    assert printed_result(nb, 1) == {"meta": None, "action": "accept", "content": HOSTILE_CONTENT}
    assert_left_one_line(nb, 1, "accepted by the person")
    assert_not_pwned(nb)


# How the form cell waits: awaiting (as `await call_tool(...)`), blocking (as `call_tool_sync`, which pumps
# the shell channel), or not at all (the cell returns; as `call_tool_background`, read the result later).
WAITS = {
    "await": (FORM_CELL, None),
    "blocking": (
        FORM_CELL.replace(
            "result = await form.wait()",
            "import concurrent.futures\n"
            "from mcp_widgets.kernel import wait_sync\n"
            "done = concurrent.futures.Future()\n"
            "form.add_done_callback(lambda f: done.set_result(f.result))\n"
            "result = wait_sync(done)",
        ),
        None,
    ),
    "returned": (
        FORM_CELL.replace("result = await form.wait()\nprint(result.model_dump_json())\n", ""),
        "print(form.result.model_dump_json())",
    ),
}


@pytest.mark.parametrize(
    "wait",
    [
        "await",
        "blocking",
        "returned",
    ],
)
def test_a_person_types_sees_errors_come_and_go_and_accepts(open_notebook: OpenNotebook, wait: str) -> None:
    from playwright.sync_api import expect

    template, reader = WAITS[wait]
    cells = [template.format(hostile=HOSTILE, message="'Type away'", schema=HOSTILE_SCHEMA)]
    nb = open_forms(open_notebook, *cells, *([reader] if reader else []))
    out = show_form(nb, 1)
    accept = out.get_by_role("button", name="Accept")

    name = out.get_by_label("Name")
    name_error = out.get_by_text("⚠ Error: must be at least 2 characters", exact=True)
    name.press_sequentially("A")
    expect(name_error).to_be_visible()  # a line of its own, under the note
    expect(out.get_by_text("Your name " + HOSTILE, exact=True)).to_be_visible()  # the note stays as it was
    expect(name).to_have_attribute("aria-invalid", "true")
    name.press_sequentially("da")
    expect(name_error).to_have_count(0, timeout=3_000)  # fails fast while the bug is there
    expect(name).not_to_have_attribute("aria-invalid", "true")

    email = out.get_by_label("Email")
    email.press_sequentially("ada@example")
    expect(out.get_by_text("⚠ Error: not a valid email address", exact=True)).to_be_visible()
    email.press_sequentially(".com")
    age = out.get_by_label("Age")
    age.press_sequentially("17")
    expect(out.get_by_text("⚠ Error: must be at least 18", exact=True)).to_be_visible()
    expect(accept).to_be_disabled()
    age.fill("42")
    # The error line goes once the kernel has checked "42", and what is below moves up: a click before
    # that lands where the checkbox was (seen under load: "Clicking the checkbox did not change its state").
    expect(out.get_by_text("⚠ Error: must be at least 18", exact=True)).to_have_count(0)
    out.get_by_label("Subscribe to news").check()
    out.get_by_label("Green").check()
    out.get_by_label("Size").select_option("xl")
    for tag in ("alpha", "gamma"):  # a few choices: a checkbox each
        out.get_by_role("checkbox", name=tag).check()
    out.get_by_label("Day").fill("2026-12-24")
    expect(out.get_by_text("⚠ Error", exact=False)).to_have_count(0)
    accept.click()
    assert_left_one_line(nb, 1, "accepted by the person")
    if reader:
        nb.run(2)
    assert printed_result(nb, 2 if reader else 1) == {
        "meta": None,
        "action": "accept",
        "content": HOSTILE_CONTENT,
    }


CITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "title": "City"}, "note": {"type": "string", "title": "Note"}},
}
# A kernel slow to handle each change (as a loaded one is): the front end holds the later keystrokes back
# until the kernel says idle for the first, while a click goes out at once and overtakes them.
SLOW_KERNEL = "import time\nform._changed.append(lambda: time.sleep(0.4))\n"


@pytest.mark.parametrize("wait", ["await", "blocking", "returned"])
def test_a_click_right_after_typing_sends_everything_typed(open_notebook: OpenNotebook, wait: str) -> None:
    """Type and at once click Accept (or press Enter in the last field) while the kernel lags: the server
    gets every character typed, not the prefix the kernel had seen when the click arrived."""
    template, reader = WAITS[wait]
    cell = template.format(hostile=HOSTILE, message="'Quick'", schema=CITY_SCHEMA)
    cell = cell.replace("display(form)\n", "display(form)\n" + SLOW_KERNEL)
    nb = open_forms(open_notebook, cell, cell, *([reader, reader] if reader else []))
    out = show_form(nb, 1)
    out.get_by_label("City").press_sequentially("Kyoto")
    out.get_by_role("button", name="Accept").click()
    assert_left_one_line(nb, 1, "accepted by the person")
    if reader:
        nb.run(3)
    assert printed_result(nb, 3 if reader else 1)["content"] == {"city": "Kyoto"}

    # Enter in the last field takes the same path.
    out = show_form(nb, 2)
    out.get_by_label("Note").press_sequentially("Bring tea")
    nb.page.keyboard.press("Enter")
    assert_left_one_line(nb, 2, "accepted by the person")
    if reader:
        nb.run(4)
    assert printed_result(nb, 4 if reader else 2)["content"] == {"note": "Bring tea"}


def test_decline_and_escape_and_screenshots(open_notebook: OpenNotebook, screenshots: Path) -> None:
    """Decline sends decline, nothing typed; Escape twice cancels typed input.

    Saves docs/screenshots/form-{light,dark}.png."""
    from playwright.sync_api import expect

    nb = open_forms(
        open_notebook,
        form_cell(BOOKING_SCHEMA, message="'Where should we book your stay?'"),
        form_cell(KEYBOARD_SCHEMA, message="'Press Escape'"),
    )
    out = show_form(nb, 1)
    out.get_by_label("Name").fill("A")  # typed but never sent; and one inline error for the pictures
    expect(out.get_by_text("⚠ Error: must be at least 2 characters", exact=True)).to_be_visible()
    out.get_by_label("Sea view").check()
    form = out.locator(".mcp-widgets-form")
    nb.page.mouse.move(0, 0)  # no hover effects in the pictures
    try:
        for theme, name in ((LIGHT_THEME, "form-light.png"), (DARK_THEME, "form-dark.png")):
            nb.set_theme(theme)
            problems = layout_problems(form)
            assert problems == [], "\n".join(problems)  # nothing overflows, no button label cut
            path = screenshots / name
            form.screenshot(path=str(path), animations="disabled")
            assert path.stat().st_size > 5_000
    finally:
        nb.set_theme(LIGHT_THEME)  # the theme is a user setting: leave it as the next test expects

    out.get_by_role("button", name="Decline").click()
    assert printed_result(nb, 1) == {"meta": None, "action": "decline", "content": None}
    assert_left_one_line(nb, 1, "declined by the person")

    out = show_form(nb, 2)
    expect(out.get_by_label("First")).to_be_focused()  # focus starts on the first field
    nb.page.keyboard.type("A")
    nb.page.keyboard.press("Escape")  # typed input: the first Escape asks
    expect(out.get_by_text("Press Esc again to cancel", exact=False)).to_be_visible()
    nb.page.keyboard.press("Escape")
    assert printed_result(nb, 2) == {"meta": None, "action": "cancel", "content": None}
    assert_left_one_line(nb, 2, "cancelled by the person")


def test_keyboard_alone_focus_tab_and_enter(open_notebook: OpenNotebook) -> None:
    """Focus starts on the first field, Tab follows the schema, Enter in the last field accepts when valid.

    Each key waits for what the person would see before the next one (the focus where it went, the value in
    the field, Accept's state): no key is pressed into a page that has not caught up."""
    from playwright.sync_api import expect

    nb = open_forms(open_notebook, form_cell(KEYBOARD_SCHEMA, message="'Keyboard only'"))
    out = show_form(nb, 1)
    keyboard = nb.page.keyboard
    first, middle, last = out.get_by_label("First"), out.get_by_label("Middle"), out.get_by_label("Last")
    accept = out.get_by_role("button", name="Accept")
    expect(first).to_be_focused()
    keyboard.press("Tab")
    expect(middle).to_be_focused()
    keyboard.type("7")
    expect(middle).to_have_value("7")
    keyboard.press("Tab")
    expect(last).to_be_focused()
    keyboard.type("L")
    expect(last).to_have_value("L")
    keyboard.press("Enter")  # "First" is required and empty: Accept is disabled, so Enter does nothing
    expect(out.get_by_text("⚠ Error", exact=False)).to_have_count(0)  # "First" untouched: no error shown yet
    expect(accept).to_be_disabled()
    expect(nb.prompt(1)).to_have_text("[*]:")
    keyboard.press("Shift+Tab")
    expect(middle).to_be_focused()
    keyboard.press("Shift+Tab")
    expect(first).to_be_focused()
    keyboard.type("A")
    expect(first).to_have_value("A")
    expect(accept).to_be_enabled()  # the kernel checked the edit and said so
    keyboard.press("Tab")
    expect(middle).to_be_focused()
    keyboard.press("Tab")
    expect(last).to_be_focused()
    keyboard.press("Enter")
    assert printed_result(nb, 1) == {
        "meta": None,
        "action": "accept",
        "content": {"first": "A", "middle": 7, "last": "L"},
    }
    assert_left_one_line(nb, 1, "accepted by the person")


def test_long_option_titles_do_not_overlap(open_notebook: OpenNotebook) -> None:
    """A radio option whose title wraps grows: it covers no other option, and every option can be clicked."""
    from playwright.sync_api import expect

    nb = open_forms(open_notebook, form_cell(HOSTILE_SCHEMA))
    out = show_form(nb, 1)
    labels = out.get_by_role("radiogroup").locator(".mcp-widgets-option")
    expect(labels).to_have_count(4)
    boxes = [labels.nth(i).bounding_box() for i in range(4)]
    for upper, lower in itertools.pairwise(boxes):
        assert upper is not None and lower is not None
        assert upper["y"] + upper["height"] <= lower["y"] + 0.5, "radio labels overlap"
    red = out.get_by_role("radiogroup").locator(".mcp-widgets-option", has_text="Red ")
    red_box, green_box = red.bounding_box(), boxes[0]  # "(no answer)": one line
    assert red_box is not None and green_box is not None
    assert red_box["height"] > green_box["height"] * 1.5, "the long title should wrap in this test"
    red.locator("input").check(timeout=3_000)  # clickable: nothing lies over it
    out.get_by_label("Blue").check(timeout=3_000)
