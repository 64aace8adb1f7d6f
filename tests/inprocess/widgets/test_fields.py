"""Each field kind: the stock control it gets, what it shows, and the exact content it answers with."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import ipywidgets as w
import mcp_types
import pytest

from mcp_widgets.core.schema import parse_schema
from mcp_widgets.demo import _schemas as demo_schemas
from mcp_widgets.widgets import ElicitationForm
from mcp_widgets.widgets._fields import TITLE_EM, title_width

from .conftest import ALL_KINDS, schema

UTC = dt.timezone.utc


def one_field(prop: dict[str, Any], *, required: bool = False) -> ElicitationForm:
    return ElicitationForm("", schema({"f": prop}, ["f"] if required else None), server="s")


def control(form: ElicitationForm, name: str = "f") -> w.Widget:
    return form._fields[name].control


def note(form: ElicitationForm, name: str = "f") -> str:
    """The field's note line ("" while it has had nothing to say: then it has no Label at all)."""
    label = form._fields[name].note
    return "" if label is None else label.value


def alert(form: ElicitationForm, name: str = "f") -> str:
    """The field's error line ("" while no error has shown: then it has no Label at all)."""
    label = form._fields[name].alert
    return "" if label is None or label.layout.display == "none" else label.value


def accepted(content: dict[str, Any]) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content=content)


CONTROLS = {
    "name": w.Text,
    "email": w.Text,
    "site": w.Text,
    "born": w.DatePicker,
    "meet": w.DatetimePicker,
    "age": w.Text,
    "ratio": w.Text,
    "agree": w.Checkbox,
    "color": w.RadioButtons,
    "size": w.RadioButtons,
    "legacy": w.RadioButtons,
    "tags": w.HBox,  # a few choices: a Checkbox each (see test_a_few_choices_are_checkboxes_many_a_list)
    "picks": w.HBox,
}


def stock(widget: w.Widget) -> type:
    """The ipywidgets class a control is (ours are lean subclasses of it: same model and view)."""
    return next(c for c in type(widget).__mro__ if c.__module__.startswith("ipywidgets."))


def test_every_kind_gets_its_control_in_schema_order() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert form.field_names == tuple(ALL_KINDS["properties"])
    for name, cls in CONTROLS.items():
        assert stock(control(form, name)) is cls, name
    controls = [
        c
        for c in form.children
        if isinstance(c, (w.ValueWidget, w.HBox)) and not isinstance(c, w.Label) and c is not form._button_box
    ]
    assert controls == [control(form, n) for n in form.field_names]


def test_title_is_the_description_with_a_required_marker_in_text() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert control(form, "name").description == "Name *"
    assert note(form, "name") == "Your name"  # the " *" says it is required; the note need not
    assert control(form, "site").description == "site"  # no title: the property name
    assert "required" not in note(form, "site")
    agree = one_field({"type": "boolean", "title": "I agree"}, required=True)
    assert control(agree).description == "I agree"  # no " *" on a checkbox: unticked is an answer too
    fields = [n for n in form.field_names if n not in ("tags", "picks")]
    assert all(not control(form, n).description_allow_html for n in fields)
    assert control(form, "tags").children[0].value == "tags"  # a Label: plain text


def test_every_control_has_an_explicit_tooltip_its_description_or_title() -> None:
    # Unset, the tooltip reaches the browser as null and radio buttons / date pickers show "null" on hover.
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert control(form, "name").tooltip == "Your name"
    assert control(form, "email").tooltip == "Email"
    assert control(form, "born").tooltip == "born"  # no title: the property name
    for name in form.field_names:
        boxes = name in ("tags", "picks")
        each = control(form, name).children[1].children if boxes else [control(form, name)]
        assert all(isinstance(c.tooltip, str) and c.tooltip for c in each), name


def test_every_title_has_the_same_width_so_controls_line_up() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    fields = [n for n in form.field_names if n not in ("tags", "picks")]
    widths = {control(form, n).style.description_width for n in fields}
    assert widths == {title_width(form.spec.fields)}
    assert control(form, "tags").children[0].layout.width == title_width(form.spec.fields)
    assert control(form, "agree").indent  # the box sits in the controls' column, its title beside it


def test_notes_start_under_the_controls_not_under_the_titles() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    width = title_width(form.spec.fields)
    note_layout = form._fields["name"].note.layout
    assert width in note_layout.margin
    site = form._fields["site"]
    assert site.note is None and site.alert is None  # nothing to say: no model, takes no space
    form.fill(site="not a url")
    assert site.note is None  # no description: the error has a line of its own
    assert site.alert is not None and site.alert.layout is note_layout  # one shared Layout for every note
    assert form.children[form.children.index(site.control) + 1] is site.alert  # placed under its control
    assert "mcp-widgets-error" in site.alert._dom_classes
    assert "mcp-widgets-invalid" in site.control._dom_classes
    form.fill(site="https://example.org")
    assert site.alert.value == "" and site.alert.layout.display == "none"  # said its piece: hidden again
    assert "mcp-widgets-invalid" not in site.control._dom_classes


def widths_for(*titles: str, kind: str = "string") -> float:
    props = {f"f{i}": {"type": kind, "title": t} for i, t in enumerate(titles)}
    return float(title_width(parse_schema(schema(props)).fields).removesuffix("em"))


def test_title_width_follows_the_longest_title_within_bounds() -> None:
    low, high = TITLE_EM
    assert widths_for("A") == low
    assert widths_for("A" * 200) == high  # longer titles wrap inside the column
    assert low < widths_for("Short", "A somewhat longer title") < high
    assert widths_for("Short", "A somewhat longer title") > widths_for("Short", "Longer")
    assert widths_for("日本語の題名です") > widths_for("abcdefgh")  # wide characters count double
    # A checkbox shows its title beside the box, not in the column.
    assert widths_for("Subscribe to the weekly newsletter", kind="boolean") == low


@pytest.mark.parametrize(
    ("prop", "typed", "sent"),
    [
        ({"type": "string"}, "hello", "hello"),
        ({"type": "string", "format": "email"}, "ada@example.org", "ada@example.org"),
        ({"type": "string", "format": "uri"}, "https://example.org/a?b=c", "https://example.org/a?b=c"),
        ({"type": "string", "format": "date"}, dt.date(2026, 1, 2), "2026-01-02"),
        ({"type": "string", "format": "date"}, "2026-03-04", "2026-03-04"),
        ({"type": "integer", "minimum": 0, "maximum": 100}, "42", 42),
        ({"type": "integer"}, 7, 7),
        ({"type": "number", "minimum": 0, "maximum": 1}, "0.25", 0.25),
        ({"type": "number"}, 2.5, 2.5),
        ({"type": "boolean"}, True, True),
        ({"type": "boolean", "default": True}, False, False),
        ({"type": "string", "enum": ["red", "green"]}, "green", "green"),
        ({"type": "string", "oneOf": [{"const": "s", "title": "S"}, {"const": "m", "title": "M"}]}, "m", "m"),
        ({"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]}, "b", "b"),
        ({"type": "string", "enum": [f"v{i}" for i in range(9)]}, "v7", "v7"),
        ({"type": "array", "items": {"enum": ["x", "y", "z"]}}, ["z", "x"], ["x", "z"]),  # boxes: in order
        ({"type": "array", "items": {"enum": [f"v{i}" for i in range(9)]}}, ["v8", "v1"], ["v8", "v1"]),
        ({"type": "array", "items": {"anyOf": [{"const": "p", "title": "P"}, {"const": "q", "title": "Q"}]}},
         ("q",), ["q"]),
    ],
)  # fmt: skip
def test_each_kind_answers_with_the_exact_content(prop: dict[str, Any], typed: Any, sent: Any) -> None:
    form = one_field(prop, required=True)
    form.fill(f=typed)
    assert form.errors == {}
    assert form.accept() is True
    assert form.result == accepted({"f": sent})
    assert type(form.result.content["f"]) is type(sent)


def test_date_time_is_sent_with_its_offset() -> None:
    form = one_field({"type": "string", "format": "date-time"}, required=True)
    when = dt.datetime(2026, 1, 2, 10, 30, tzinfo=UTC)
    form.fill(f=when)
    assert control(form).value == when
    assert form.accept()
    sent = form.result.content["f"]
    assert isinstance(sent, str)
    assert dt.datetime.fromisoformat(sent.replace("Z", "+00:00")) == when


def test_date_time_keeps_an_offset_given_as_text() -> None:
    form = one_field({"type": "string", "format": "date-time"}, required=True)
    form.fill(f="2026-05-06T07:08:09+02:00")
    assert control(form).value == dt.datetime(2026, 5, 6, 5, 8, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("prop", "sent"),
    [
        ({"type": "string", "default": "hi"}, "hi"),
        ({"type": "string", "format": "email", "default": "a@b.example"}, "a@b.example"),
        ({"type": "integer", "default": 5}, 5),
        ({"type": "number", "default": 0.5}, 0.5),
        ({"type": "boolean", "default": True}, True),
        ({"type": "boolean", "default": False}, False),
        ({"type": "string", "format": "date", "default": "2025-12-31"}, "2025-12-31"),
        ({"type": "string", "enum": ["a", "b"], "default": "b"}, "b"),
        ({"type": "string", "enum": [f"v{i}" for i in range(9)], "default": "v8"}, "v8"),
        ({"type": "array", "items": {"enum": ["x", "y", "z"]}, "default": ["y", "z"]}, ["y", "z"]),
    ],
)
def test_untouched_defaults_are_prefilled_and_sent(prop: dict[str, Any], sent: Any) -> None:
    form = one_field(prop)
    assert form.accept() is True
    assert form.result == accepted({"f": sent})


def test_date_time_default_is_prefilled() -> None:
    form = one_field({"type": "string", "format": "date-time", "default": "2026-01-02T03:04:05Z"})
    assert control(form).value == dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string"},
        {"type": "string", "format": "email"},
        {"type": "string", "format": "uri"},
        {"type": "string", "format": "date"},
        {"type": "string", "format": "date-time"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "string", "enum": ["a", "b"]},
        {"type": "string", "enum": [f"v{i}" for i in range(9)]},
        {"type": "array", "items": {"enum": ["x", "y"]}},
    ],
)
def test_optional_fields_left_empty_are_omitted(prop: dict[str, Any]) -> None:
    form = ElicitationForm("", schema({"f": prop, "g": {"type": "string"}}), server="s")
    form.fill(g="x")
    assert form.accept() is True
    assert form.result == accepted({"g": "x"})


def test_an_optional_choice_can_be_taken_back() -> None:
    form = one_field({"type": "string", "enum": ["a", "b"]})
    assert control(form).options[0][0] == "(no answer)"
    assert control(form).index == 0  # shown chosen from the start
    form.fill(f="a")
    form.fill(f=None)
    # Chosen again, it stays chosen: its value is not None, which ipywidgets takes for no selection (it set
    # the index to None, and the browser redrew the buttons unchecked, dropping the arrows' focus).
    assert control(form).index == 0
    assert form.accept()
    assert form.result == accepted({})


def test_a_required_choice_starts_unselected() -> None:
    form = one_field({"type": "string", "enum": ["a", "b"]}, required=True)
    assert control(form).index is None
    assert [o[1] for o in control(form).options] == ["a", "b"]
    assert "f" in form.errors


def test_choices_show_titles_and_send_values() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert [label for label, _ in control(form, "size").options][1:] == ["Small", "Medium"]
    assert [label for label, _ in control(form, "legacy").options][1:] == ["Alpha", "Beta"]
    assert [box.description for box in control(form, "picks").children[1].children] == ["Pea", "Queue"]
    many = one_field({"type": "array", "items": {"enum": [f"v{i}" for i in range(9)]}})
    assert stock(control(many)) is w.SelectMultiple and "Ctrl" in note(many)


def test_a_few_choices_are_checkboxes_many_a_list() -> None:
    items = {"type": "array", "items": {"enum": list("abcdefgh")}, "minItems": 1, "maxItems": 2}
    items["default"] = ["b"]
    form = one_field(items)
    boxes = control(form).children[1].children
    assert [stock(b) for b in boxes] == [w.Checkbox] * 8
    assert [b.value for b in boxes] == [False, True] + [False] * 6  # the default is ticked
    assert note(form) == "Pick 1 or 2."  # the limits stay in sight
    form.fill(f=["a", "b", "c"])
    assert alert(form) == "⚠ Error: choose at most 2"
    form.fill(f=["c"])
    assert form.accept() is True and form.result == accepted({"f": ["c"]})
    assert one_field({**items, "items": {"enum": list("abcdefghi")}})._fields["f"].spec.choices
    assert stock(control(one_field({**items, "items": {"enum": list("abcdefghi")}}))) is w.SelectMultiple


@pytest.mark.parametrize("name", demo_schemas.__all__)
def test_the_demo_says_each_limit_once(name: str) -> None:
    # The form says how many to pick ("Pick up to 3."): a description that says it too reads it twice.
    form = ElicitationForm("", getattr(demo_schemas, name), server="demo")
    for key, field in form._fields.items():
        limits = {n for n in (field.spec.min_items, field.spec.max_items) if n}
        text = note(form, key)
        for n in limits:
            assert re.findall(rf"\b{n}\b", text) == [str(n)], (key, text)


@pytest.mark.parametrize(
    ("description", "said"),
    [
        ("Your user name.", "does not have the form this field asks for"),  # the description need not say it
        (None, "must match the pattern ^[a-z]+$"),  # nothing else says what is wanted
        ("   ", "must match the pattern ^[a-z]+$"),  # a blank description shows nothing above
    ],
)
def test_a_pattern_error_says_only_what_is_true(description: str | None, said: str) -> None:
    prop: dict[str, Any] = {"type": "string", "pattern": "^[a-z]+$"}
    if description is not None:
        prop["description"] = description
    form = one_field(prop)
    form.fill(f="ABC")
    assert alert(form) == f"⚠ Error: {said}"
    assert "description above" not in alert(form)


def test_more_than_five_choices_use_a_dropdown() -> None:
    assert stock(control(one_field({"type": "string", "enum": list("abcde")}))) is w.RadioButtons
    assert stock(control(one_field({"type": "string", "enum": list("abcdef")}))) is w.Dropdown


def test_numbers_are_text_boxes_with_a_hint_of_the_range() -> None:
    form = one_field({"type": "integer", "minimum": 0, "maximum": 100})
    assert control(form).placeholder == "whole number, 0–100"
    assert control(one_field({"type": "number", "minimum": 1.5})).placeholder == "number, at least 1.5"
    assert control(one_field({"type": "number"})).placeholder == "number"
    strict = one_field({"type": "number", "exclusiveMinimum": 0, "maximum": 10})
    assert control(strict).placeholder == "number, more than 0, at most 10"


def test_out_of_range_numbers_are_reported_not_clamped() -> None:
    form = one_field({"type": "integer", "minimum": 0, "maximum": 100})
    form.fill(f="250")
    assert control(form).value == "250"
    assert "f" in form.errors
    assert alert(form) == f"⚠ Error: {form.errors['f']}"
    assert "Error" not in note(form)  # the error has its own line
    assert form.accept() is False


def test_fill_sends_what_a_browser_sends() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    born = control(form, "born")
    assert form._fields["born"].state_for(dt.date(2026, 2, 3)) == {
        "value": born.trait_metadata("value", "to_json")(dt.date(2026, 2, 3), born)
    }
    assert form._fields["tags"].state_for(["z", "x"]) == {"values": [True, False, True]}  # one per box
    many = one_field({"type": "array", "items": {"enum": [f"v{i}" for i in range(9)]}})
    assert many._fields["f"].state_for(["v2", "v0"]) == {"index": [2, 0]}
    assert form._fields["color"].state_for("green") == {"index": 2}  # after "(no answer)"


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("name", 12345, TypeError),
        ("agree", "yes", TypeError),
        ("born", "not a date", ValueError),
        ("born", dt.datetime(2026, 1, 1, tzinfo=UTC), TypeError),
        ("meet", "soon", ValueError),
        ("color", "purple", ValueError),
        ("tags", "xyzzy", TypeError),
        ("tags", ["nope"], ValueError),
    ],
)
def test_fill_refuses_what_no_person_could_enter_without_echoing_it(
    name: str, value: Any, error: type
) -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    values = {"name": "ok", name: value}
    with pytest.raises(error) as info:
        form.fill(**values)
    assert name in str(info.value)
    assert str(value) not in str(info.value)
    assert control(form, "name").value == ""  # nothing was set: fill is all or nothing


def test_a_hint_follows_the_description_as_its_own_sentence() -> None:
    items = {"type": "array", "items": {"enum": ["a", "b"]}}
    form = ElicitationForm(
        "m",
        schema({"f": {**items, "description": "Paid apart"}, "g": {**items, "description": "Pick some!"}}),
        server="s",
    )
    assert note(form) == "Paid apart. Pick any."
    assert note(form, "g") == "Pick some! Pick any."
    text = ElicitationForm("m", schema({"f": {"type": "string", "description": "No stop"}}), server="s")
    assert note(text) == "No stop"  # nothing follows: left as the server wrote it
