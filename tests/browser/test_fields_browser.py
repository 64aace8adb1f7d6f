"""Every field type in a real JupyterLab, answered as a person would, with the server at the other end.

Each form comes from the demo server's `echo_elicit` tool (in the kernel's process): it asks with the schema
given and returns the answer exactly as it arrived, so what a cell prints is what the server received.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from .harness import UI_MS, NotebookPage
from .test_client_browser import CONNECT_IN_PROCESS, HEADER, connected

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

HINTS = {"toppings": "Pick any.", "extras": "Pick at least 1."}
"""What a multi-select's note adds after the field's description: how many to pick."""

# One field of every kind and choice shape, each with a title, a description and a default; the required ones
# are one of each control (text, email, date-time, integer, checkbox, radio buttons, multi-select).
ALL_FIELDS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Full name",
            "description": "As on your passport.",
            "minLength": 2,
            "default": "Ada Lovelace",
        },
        "email": {
            "type": "string",
            "format": "email",
            "title": "Email",
            "description": "We write to you here.",
            "default": "ada@example.com",
        },
        "homepage": {
            "type": "string",
            "format": "uri",
            "title": "Home page",
            "description": "A link about you.",
            "default": "https://example.org/ada",
        },
        "birthday": {
            "type": "string",
            "format": "date",
            "title": "Birthday",
            "description": "Day of birth.",
            "default": "1815-12-10",
        },
        "meeting": {
            "type": "string",
            "format": "date-time",
            "title": "Meeting",
            "description": "When we meet.",
            "default": "2026-07-01T09:30:00+02:00",
        },
        "guests": {
            "type": "integer",
            "title": "Guests",
            "description": "Including you.",
            "minimum": 1,
            "maximum": 8,
            "default": 3,
        },
        "budget": {"type": "number", "title": "Budget", "description": "Per night, in EUR.", "default": 12.5},
        "newsletter": {
            "type": "boolean",
            "title": "Send me news",
            "description": "About twice a year.",
            "default": True,
        },
        "size": {
            "type": "string",
            "title": "Size",
            "description": "Of the room.",
            "enum": ["s", "m", "l"],
            "default": "m",
        },
        "room": {  # six options: a dropdown
            "type": "string",
            "title": "Room",
            "description": "Pick a view.",
            "oneOf": [
                {"const": "std", "title": "Standard"},
                {"const": "sea", "title": "Sea view"},
                {"const": "garden", "title": "Garden view"},
                {"const": "suite", "title": "Suite"},
                {"const": "loft", "title": "Loft"},
                {"const": "attic", "title": "Attic"},
            ],
            "default": "sea",
        },
        "flavour": {
            "type": "string",
            "title": "Flavour",
            "description": "Of the welcome cake.",
            "enum": ["v", "c", "s"],
            "enumNames": ["Vanilla", "Chocolate", "Strawberry"],
            "default": "c",
        },
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "description": "On the cake.",
            "items": {"type": "string", "enum": ["nuts", "sauce", "sprinkles"]},
            "default": ["nuts", "sprinkles"],
        },
        "extras": {
            "type": "array",
            "title": "Extras",
            "description": "Paid apart.",
            "items": {
                "anyOf": [
                    {"const": "bf", "title": "Breakfast"},
                    {"const": "park", "title": "Parking"},
                    {"const": "late", "title": "Late checkout"},
                ]
            },
            "minItems": 1,
            "default": ["park"],
        },
    },
    "required": ["name", "email", "meeting", "guests", "newsletter", "size", "extras"],
}


@dataclass(frozen=True)
class Shown:
    """How a field's default shows: the element holding it (CSS, inside the field's row) and its state."""

    control: str
    value: str | bool = ""
    """An input's value, or whether a checkbox is ticked."""
    options: tuple[str, ...] = ()
    """A select's option titles, in order (an optional single select starts with "(no answer)")."""
    chosen: tuple[str, ...] = ()
    """The option titles selected."""


NO_ANSWER = "(no answer)"
SHOWN: dict[str, Shown] = {
    "name": Shown("input[type=text]", "Ada Lovelace"),
    "email": Shown("input[type=text]", "ada@example.com"),
    "homepage": Shown("input[type=text]", "https://example.org/ada"),
    "birthday": Shown("input[type=date]", "1815-12-10"),
    # 09:30 at +02:00 is 07:30 UTC, 13:00 in Kolkata (+05:30): the browser's time zone in that test.
    "meeting": Shown("input[type=datetime-local]", "2026-07-01T13:00"),
    "guests": Shown("input[type=text]", "3"),
    "budget": Shown("input[type=text]", "12.5"),
    "newsletter": Shown("input[type=checkbox]", True),
    "size": Shown("[role=radiogroup]", options=("s", "m", "l"), chosen=("m",)),
    "room": Shown(
        "select:not([multiple])",
        options=(NO_ANSWER, "Standard", "Sea view", "Garden view", "Suite", "Loft", "Attic"),
        chosen=("Sea view",),
    ),
    "flavour": Shown(
        "[role=radiogroup]", options=(NO_ANSWER, "Vanilla", "Chocolate", "Strawberry"), chosen=("Chocolate",)
    ),
    # A few choices: a checkbox each, the defaults ticked.
    "toppings": Shown(
        ".mcp-widgets-choices", options=("nuts", "sauce", "sprinkles"), chosen=("nuts", "sprinkles")
    ),
    "extras": Shown(
        ".mcp-widgets-choices", options=("Breakfast", "Parking", "Late checkout"), chosen=("Parking",)
    ),
}
DEFAULTS_SENT = {
    "name": "Ada Lovelace",
    "email": "ada@example.com",
    "homepage": "https://example.org/ada",
    "birthday": "1815-12-10",
    "meeting": "2026-07-01T09:30:00+02:00",  # untouched: the server's own string comes back
    "guests": 3,
    "budget": 12.5,
    "newsletter": True,
    "size": "m",
    "room": "sea",
    "flavour": "c",
    "toppings": ["nuts", "sprinkles"],
    "extras": ["park"],
}

LIMITS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "extras": {
            "type": "array",
            "title": "Extras",
            "description": "Choose two or three.",
            "items": {
                "anyOf": [
                    {"const": "bf", "title": "Breakfast"},
                    {"const": "park", "title": "Parking"},
                    {"const": "late", "title": "Late checkout"},
                    {"const": "spa", "title": "Spa"},
                    {"const": "gym", "title": "Gym"},
                ]
            },
            "minItems": 2,
            "maxItems": 3,
        }
    },
    "required": ["extras"],
}

WHEN: dict[str, Any] = {
    "type": "object",
    "properties": {
        "day": {"type": "string", "format": "date", "title": "Day", "description": "Arrival day."},
        "start": {"type": "string", "format": "date-time", "title": "Start", "description": "Check-in time."},
    },
    "required": ["day", "start"],
}


def echo_cell(schema: dict[str, Any], message: str) -> str:
    """A cell that calls the demo's echo_elicit with `schema` and prints what the server received (JSON)."""
    return (
        "import json\n"
        f"arguments = {{'requested_schema': {schema!r}, 'message': {message!r}}}\n"
        "result = await srv.call_tool('echo_elicit', arguments)\n"
        "print(json.dumps(result.structured_content))\n"
    )


def echo_form(nb: NotebookPage, index: int, message: str) -> Any:
    """Run echo cell `index`; its form element once it shows the server's name and `message`."""
    from playwright.sync_api import expect

    nb.run(index)
    form = nb.output(index).locator(".mcp-widgets-form")
    expect(form.get_by_text(HEADER, exact=True)).to_be_visible()
    expect(form.get_by_text(message, exact=True)).to_be_visible()
    return form


def received(nb: NotebookPage, index: int) -> Any:
    """What the server received, as echo cell `index` printed it (waits for the cell to finish)."""
    from playwright.sync_api import expect

    nb.wait_done(index)
    expect(nb.stdout(index)).to_have_count(1)
    return json.loads(nb.stdout(index).inner_text())


def assert_shows(row: Any, shown: Shown) -> None:
    """The control in `row` holds `shown` (its default)."""
    from playwright.sync_api import expect

    control = row.locator(shown.control)
    expect(control).to_have_count(1)
    if shown.control == "input[type=checkbox]":
        expect(control).to_be_checked(checked=bool(shown.value))
    elif shown.control == ".mcp-widgets-choices" or shown.control == "[role=radiogroup]":
        expect(control.locator("label")).to_have_text(list(shown.options))
        expect(control.locator("label:has(input:checked)")).to_have_text(list(shown.chosen))
    elif shown.control.startswith("select"):
        expect(control.locator("option")).to_have_text(list(shown.options))
        expect(control.locator("option:checked")).to_have_text(list(shown.chosen))
    else:
        expect(control).to_have_value(str(shown.value))


def test_every_field_kind_shows_title_description_required_marker_and_default(
    open_notebook: OpenNotebook,
) -> None:
    """One form with every field kind: each shows its title (" *" when required), its description in the note
    under it and its default; Accept untouched sends the defaults."""
    from playwright.sync_api import expect

    message = "Every kind of field, each with a default"
    in_kolkata = functools.partial(open_notebook, timezone_id="Asia/Kolkata")
    nb = connected(in_kolkata, CONNECT_IN_PROCESS, echo_cell(ALL_FIELDS, message))
    form = echo_form(nb, 1, message)
    properties: dict[str, dict[str, Any]] = ALL_FIELDS["properties"]
    required = set(ALL_FIELDS["required"])
    assert list(SHOWN) == list(properties)  # SHOWN covers every field, in order

    # One row a field, in the schema's order: its title, its control, the note under the control.
    rows = form.locator(".mcp-widgets-field")
    expect(rows).to_have_count(len(properties))
    for i, (name, prop) in enumerate(properties.items()):
        row = rows.nth(i)
        note = row.locator(".mcp-widgets-note")
        expect(row).to_be_visible()
        # No " *" on a lone checkbox: unticked is an answer too.
        title = prop["title"] + (" *" if name in required and prop["type"] != "boolean" else "")
        # A checkbox shows its title beside the box; every other control in the title column.
        title_label = ".mcp-widgets-check > span" if prop["type"] == "boolean" else ".mcp-widgets-title"
        expect(row.locator(title_label)).to_have_text(title)
        text = prop["description"]
        expect(note).to_have_text(f"{text} {HINTS[name]}" if prop["type"] == "array" else text)
        assert_shows(row, SHOWN[name])
    # Nothing has an error before anything is touched.
    expect(form.get_by_text("⚠ Error")).to_have_count(0)

    accept = form.get_by_role("button", name="Accept")
    expect(accept).to_be_enabled()
    accept.click()
    assert received(nb, 1) == {"action": "accept", "content": DEFAULTS_SENT}


def test_multi_select_limits_show_errors_and_gate_accept(open_notebook: OpenNotebook) -> None:
    """minItems 2 / maxItems 3 over five choices, ticked one click each: one or four show the error on a line
    of its own and keep Accept disabled; three enable it, and the server receives their values in the
    options' order."""
    from playwright.sync_api import expect

    message = "Pick your extras"
    nb = connected(open_notebook, CONNECT_IN_PROCESS, echo_cell(LIMITS, message))
    form = echo_form(nb, 1, message)
    accept = form.get_by_role("button", name="Accept")
    note = form.get_by_text("Choose two or three.", exact=False)
    error = form.locator(".mcp-widgets-verdict:not([hidden])")
    expect(note).to_have_text("Choose two or three. Pick 2 or 3.")  # the limits, in sight
    expect(error).to_have_count(0)  # no error before a choice
    expect(accept).to_be_disabled()

    def box(title: str) -> Any:
        return form.get_by_role("checkbox", name=title)

    box("Breakfast").check()
    expect(error).to_have_text("⚠ Error: choose at least 2")
    expect(form.locator(".mcp-widgets-field:has([role=group])")).to_have_class(
        re.compile("mcp-widgets-invalid")
    )
    expect(box("Breakfast")).to_have_attribute("aria-invalid", "true")
    expect(accept).to_be_disabled()

    for title in ("Parking", "Gym", "Spa"):  # not in the options' order
        box(title).check()
    expect(error).to_have_text("⚠ Error: choose at most 3")
    expect(accept).to_be_disabled()

    box("Breakfast").uncheck()  # taken back: three left
    expect(note).to_have_text("Choose two or three. Pick 2 or 3.")
    expect(error).to_be_hidden()
    expect(box("Parking")).not_to_have_attribute("aria-invalid", "true")
    expect(accept).to_be_enabled()
    accept.click()
    assert received(nb, 1) == {"action": "accept", "content": {"extras": ["park", "spa", "gym"]}}


# (browser time zone, the kernel's TZ, the date-time the server receives for 2026-12-24 18:30 typed in the
# browser). The kernel reads the picked instant in its own time zone: the same as the browser's when both run
# on one machine, UTC here for a kernel elsewhere. Both sides of UTC, where a date picker would slip a day.
ZONES = {
    "same-zone-west-of-utc": ("Pacific/Honolulu", "HST10", "2026-12-24T18:30:00-10:00"),
    "kernel-in-utc-east-of-utc": ("Asia/Kolkata", "UTC0", "2026-12-24T13:00:00+00:00"),
}


@pytest.mark.parametrize("zones", list(ZONES))
def test_date_and_date_time_pickers_send_iso_strings(open_notebook: OpenNotebook, zones: str) -> None:
    """A date and a date-time picked in the browser reach the server as "YYYY-MM-DD" and as RFC 3339 with
    the kernel's offset (the instant the person picked, to the second)."""
    from playwright.sync_api import expect

    browser_zone, kernel_zone, sent = ZONES[zones]
    connect = f"import os, time\nos.environ['TZ'] = {kernel_zone!r}\ntime.tzset()\n" + CONNECT_IN_PROCESS
    message = "When do you arrive?"
    nb = connected(
        functools.partial(open_notebook, timezone_id=browser_zone), connect, echo_cell(WHEN, message)
    )
    form = echo_form(nb, 1, message)
    accept = form.get_by_role("button", name="Accept")
    expect(accept).to_be_disabled()  # both are required and empty

    day = form.get_by_label("Day")
    start = form.get_by_label("Start")
    expect(day).to_have_attribute("type", "date")
    expect(start).to_have_attribute("type", "datetime-local")
    day.fill("2026-12-24")
    start.fill("2026-12-24T18:30")
    expect(accept).to_be_enabled()
    expect(form.get_by_text("⚠ Error")).to_have_count(0)
    accept.click()
    assert received(nb, 1) == {"action": "accept", "content": {"day": "2026-12-24", "start": sent}}


# Two tool forms of one tool with two choice arguments, in one cell. A tool form has no keyboard helper (its
# result holds the tool's own questions): its FormStyle view names the option groups.
TWO_TOOL_FORMS = """\
from typing import Literal
from mcp.server.mcpserver import MCPServer
import mcp_widgets as mw
from mcp_widgets.widgets._tool_form import tool_form
shop = MCPServer("shop")

@shop.tool()
def order(flavour: Literal["vanilla", "chocolate", "pistachio"] = "vanilla",
          size: Literal["small", "medium", "large"] = "medium") -> str:
    return f"ordered {flavour} {size}"

s = await mw.connect(shop, name="shop")
display(tool_form(s, "order"), tool_form(s, "order"))
"""
GROUP_NAMES_JS = """(form) => [...form.querySelectorAll('.widget-radio-box')].map(
  (group) => [...new Set([...group.querySelectorAll('input')].map((i) => i.name))])"""


def test_tool_form_arrows_stay_in_their_radio_group(open_notebook: OpenNotebook) -> None:
    """Two tool forms: each radio group has a name of its own on the page; ArrowDown on Flavour's last option
    wraps to its first, "(no answer)", and ArrowUp back (Size and the other form keep theirs; the notebook
    does not take the arrows), and Run sends what the keys chose."""
    from playwright.sync_api import expect

    nb = open_notebook([TWO_TOOL_FORMS, "1"])
    nb.run(0)
    forms = nb.output(0).locator(".mcp-widgets-tool-form")
    expect(forms.get_by_role("button", name="Run")).to_have_count(2, timeout=UI_MS * 4)
    first, second = forms.nth(0), forms.nth(1)
    names = [nb.page.evaluate(GROUP_NAMES_JS, form.element_handle()) for form in (first, second)]
    flat = [group[0] for form in names for group in form]
    assert all(len(group) == 1 for form in names for group in form), names
    assert len(flat) == 4 and len(set(flat)) == 4 and all(n.startswith("mcp-widgets-") for n in flat), names

    def option(form: Any, title: str) -> Any:
        return form.get_by_role("radio", name=title, exact=True)

    option(first, "pistachio").check()
    nb.page.keyboard.press("ArrowDown")  # an optional argument's first option: "(no answer)"
    expect(option(first, "(no answer)").first).to_be_checked()
    expect(option(first, "medium")).to_be_checked()
    nb.page.keyboard.press("ArrowDown")
    expect(option(first, "vanilla")).to_be_checked()
    expect(option(first, "vanilla")).to_be_focused()
    expect(option(first, "medium")).to_be_checked()
    expect(nb.cell(0)).to_have_class(re.compile(r"\bjp-mod-active\b"))  # the cell selection stayed
    nb.page.keyboard.press("ArrowUp")
    nb.page.keyboard.press("ArrowUp")
    expect(option(first, "pistachio")).to_be_checked()  # ArrowUp on its first option wraps to its last
    expect(option(first, "medium")).to_be_checked()
    for title in ("vanilla", "medium"):  # the other form keeps its defaults
        expect(option(second, title)).to_be_checked()
    first.get_by_role("button", name="Run").click()
    expect(first).to_contain_text("ordered pistachio medium")
