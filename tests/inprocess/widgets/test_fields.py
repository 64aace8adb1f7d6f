"""Each field kind: the control the page renders, what it shows, and the exact content it answers with."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import mcp_types
import pytest

from mcp_widgets.core.schema import parse_schema
from mcp_widgets.demo import _schemas as demo_schemas
from mcp_widgets.widgets import ElicitationForm
from mcp_widgets.widgets._fields import TITLE_EM, title_width

from .conftest import ALL_KINDS, card_row, note, page_edit, schema, verdict

UTC = dt.timezone.utc


def one_field(prop: dict[str, Any], *, required: bool = False) -> ElicitationForm:
    return ElicitationForm("", schema({"f": prop}, ["f"] if required else None), server="s")


def accepted(content: dict[str, Any]) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content=content)


WIDGETS = {
    "name": "text",
    "email": "text",
    "site": "text",
    "born": "date",
    "meet": "datetime",
    "age": "number",
    "ratio": "number",
    "agree": "checkbox",
    "color": "radio",
    "size": "radio",
    "legacy": "radio",
    "tags": "checks",  # a few choices: a checkbox each (see test_a_few_choices_are_checkboxes_many_a_list)
    "picks": "checks",
}


def test_every_kind_gets_its_control_in_schema_order() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert form.field_names == tuple(ALL_KINDS["properties"])
    assert [r["name"] for r in form.card["rows"]] == list(form.field_names)
    for name, widget in WIDGETS.items():
        assert card_row(form, name)["widget"] == widget, name


def test_title_is_the_description_with_a_required_marker_in_text() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert card_row(form, "name")["title"] == "Name *"
    assert note(form, "name") == "Your name"  # the " *" says it is required; the note need not
    assert card_row(form, "site")["title"] == "site"  # no title: the property name
    assert "required" not in note(form, "site")
    agree = one_field({"type": "boolean", "title": "I agree"}, required=True)
    assert card_row(agree)["title"] == "I agree"  # no " *" on a checkbox: unticked is an answer too


def test_every_control_has_an_explicit_tooltip_its_description_or_title() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert card_row(form, "name")["tooltip"] == "Your name"
    assert card_row(form, "email")["tooltip"] == "Email"
    assert card_row(form, "born")["tooltip"] == "born"  # no title: the property name
    for name in form.field_names:
        assert isinstance(card_row(form, name)["tooltip"], str) and card_row(form, name)["tooltip"], name


def test_every_title_has_the_same_width_so_controls_line_up() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert form.card["title_width"] == title_width(form.spec.fields)


def test_a_field_has_a_note_only_when_it_has_something_to_say() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert note(form, "name") == "Your name"
    assert note(form, "site") == "" and verdict(form, "site") == ""
    form.fill(site="not a url")
    assert note(form, "site") == ""  # no description: the error has a line of its own
    assert verdict(form, "site").startswith("⚠ Error:")
    form.fill(site="https://example.org")
    assert verdict(form, "site") == "" and "site" not in form.verdicts  # said its piece: gone again


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
    assert form.values()["f"] == when
    assert form.accept()
    sent = form.result.content["f"]
    assert isinstance(sent, str)
    assert dt.datetime.fromisoformat(sent.replace("Z", "+00:00")) == when


def test_date_time_keeps_an_offset_given_as_text() -> None:
    form = one_field({"type": "string", "format": "date-time"}, required=True)
    form.fill(f="2026-05-06T07:08:09+02:00")
    assert form.values()["f"] == dt.datetime(2026, 5, 6, 5, 8, 9, tzinfo=UTC)


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
    assert form.values()["f"] == dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert card_row(form)["value"] == "2026-01-02T03:04:05+00:00"  # the page shows it in its own zone


def test_a_date_time_from_the_page_is_an_instant() -> None:
    form = one_field({"type": "string", "format": "date-time"}, required=True)
    page_edit(form, "f", "2026-01-02T10:30:00.000Z")  # fields.js: the local time as an ISO instant
    assert form.values()["f"] == dt.datetime(2026, 1, 2, 10, 30, tzinfo=UTC)
    page_edit(form, "f", "")
    assert form.values()["f"] is None and "f" in form.errors


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
    assert card_row(form)["options"][0] == "(no answer)"
    assert card_row(form)["value"] == 0  # shown chosen from the start
    page_edit(form, "f", 1)
    assert form.values()["f"] == "a"
    page_edit(form, "f", 0)  # "(no answer)" chosen again
    assert form.values()["f"] is None
    assert form.accept()
    assert form.result == accepted({})


def test_a_required_choice_starts_unselected() -> None:
    form = one_field({"type": "string", "enum": ["a", "b"]}, required=True)
    assert card_row(form)["value"] is None
    assert card_row(form)["options"] == ["a", "b"]
    assert "f" in form.errors


def test_choices_show_titles_and_send_values() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    assert card_row(form, "size")["options"][1:] == ["Small", "Medium"]
    assert card_row(form, "legacy")["options"][1:] == ["Alpha", "Beta"]
    assert card_row(form, "picks")["options"] == ["Pea", "Queue"]
    page_edit(form, "size", 2)  # the page sends the option's place; the form holds its value
    assert form.values()["size"] == "m"
    many = one_field({"type": "array", "items": {"enum": [f"v{i}" for i in range(9)]}})
    assert card_row(many)["widget"] == "list" and "Ctrl" in note(many)


def test_a_few_choices_are_checkboxes_many_a_list() -> None:
    items = {"type": "array", "items": {"enum": list("abcdefgh")}, "minItems": 1, "maxItems": 2}
    items["default"] = ["b"]
    form = one_field(items)
    assert card_row(form)["widget"] == "checks" and len(card_row(form)["options"]) == 8
    assert card_row(form)["value"] == [1]  # the default is ticked
    assert note(form) == "Pick 1 or 2."  # the limits stay in sight
    page_edit(form, "f", [0, 1, 2])
    assert verdict(form) == "⚠ Error: choose at most 2"
    form.fill(f=["c"])
    assert form.accept() is True and form.result == accepted({"f": ["c"]})
    assert card_row(one_field({**items, "items": {"enum": list("abcdefghi")}}))["widget"] == "list"


@pytest.mark.parametrize("name", demo_schemas.__all__)
def test_the_demo_says_each_limit_once(name: str) -> None:
    # The form says how many to pick ("Pick up to 3."): a description that says it too reads it twice.
    form = ElicitationForm("", getattr(demo_schemas, name), server="demo")
    for field in form.spec.fields:
        key = field.name
        limits = {n for n in (field.min_items, field.max_items) if n}
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
    assert verdict(form) == f"⚠ Error: {said}"
    assert "description above" not in verdict(form)


def test_more_than_five_choices_use_a_dropdown() -> None:
    assert card_row(one_field({"type": "string", "enum": list("abcde")}))["widget"] == "radio"
    assert card_row(one_field({"type": "string", "enum": list("abcdef")}))["widget"] == "select"


def test_numbers_are_text_boxes_with_a_hint_of_the_range() -> None:
    form = one_field({"type": "integer", "minimum": 0, "maximum": 100})
    assert card_row(form)["placeholder"] == "whole number, 0–100"
    assert card_row(one_field({"type": "number", "minimum": 1.5}))["placeholder"] == "number, at least 1.5"
    assert card_row(one_field({"type": "number"}))["placeholder"] == "number"
    strict = one_field({"type": "number", "exclusiveMinimum": 0, "maximum": 10})
    assert card_row(strict)["placeholder"] == "number, more than 0, at most 10"


def test_out_of_range_numbers_are_reported_not_clamped() -> None:
    form = one_field({"type": "integer", "minimum": 0, "maximum": 100})
    form.fill(f="250")
    assert form.values()["f"] == "250"
    assert "f" in form.errors
    assert verdict(form) == f"⚠ Error: {form.errors['f']}"
    assert "Error" not in note(form)  # the error has its own line
    assert form.accept() is False


def test_the_page_gets_values_as_it_shows_them() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    sent: list[Any] = []
    form.send = sent.append  # type: ignore[method-assign]  # what would go to the page, as a message
    form.fill(born=dt.date(2026, 2, 3), tags=["z", "x"], color="green")
    assert sent == [
        {"values": {"born": "2026-02-03", "tags": [0, 2], "color": 2}}
    ]  # color after "(no answer)"
    many = one_field({"type": "array", "items": {"enum": [f"v{i}" for i in range(9)]}})
    many.fill(f=["v2", "v0"])
    assert many.values()["f"] == ("v2", "v0")  # a list keeps the order given


def test_what_no_page_sends_is_ignored() -> None:
    form = ElicitationForm("", ALL_KINDS, server="s")
    for name, raw in [("agree", "yes"), ("color", 99), ("tags", "x"), ("name", 5), ("nope", "x")]:
        page_edit(form, name, raw)
    assert form.values() == ElicitationForm("", ALL_KINDS, server="s").values()


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
    assert form.values()["name"] == ""  # nothing was set: fill is all or nothing


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
