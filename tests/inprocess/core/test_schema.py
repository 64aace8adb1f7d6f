from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from mcp_widgets.core.exceptions import SchemaError
from mcp_widgets.core.schema import (
    MISSING,
    Choice,
    FieldSpec,
    FormSpec,
    Problem,
    check_schema,
    initial_value,
    parse_schema,
    validate_schema,
)
from mcp_widgets.core.spec import MAX_PATTERN_LENGTH


def obj(properties: Any = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties or {}, **extra}


def one(prop: dict[str, Any], *, required: bool = False) -> FieldSpec:
    spec = parse_schema(obj({"f": prop}, required=["f"] if required else []))
    assert len(spec.fields) == 1
    return spec.fields[0]


def found(schema: object) -> set[tuple[str, str, str | None]]:
    return {(p.severity, p.rule, p.property) for p in parse_schema(schema).problems}


def rules_of(prop: dict[str, Any]) -> set[tuple[str, str]]:
    return {(p.severity, p.rule) for p in parse_schema(obj({"f": prop})).problems if p.property == "f"}


# -- shapes ----------------------------------------------------------------------------------------


def test_fields_keep_the_servers_order_and_required() -> None:
    spec = parse_schema(
        obj(
            {"z": {"type": "string"}, "a": {"type": "boolean"}, "m": {"type": "integer"}},
            required=["m", "z"],
        )
    )
    assert [f.name for f in spec.fields] == ["z", "a", "m"]
    assert [f.required for f in spec.fields] == [True, False, True]
    assert spec.problems == ()
    assert spec.ok


def test_string_shape() -> None:
    f = one(
        {
            "type": "string",
            "title": "Your name",
            "description": "As on your passport",
            "minLength": 2,
            "maxLength": 40,
            "default": "Ada",
            "pattern": "^[A-Z]",
        },
        required=True,
    )
    assert f == FieldSpec(
        name="f",
        kind="text",
        title="Your name",
        description="As on your passport",
        required=True,
        default="Ada",
        min_length=2,
        max_length=40,
        pattern="^[A-Z]",
    )
    assert f.schema["title"] == "Your name"


def test_title_falls_back_to_the_property_name() -> None:
    assert one({"type": "string"}).title == "f"
    assert one({"type": "string", "title": ""}).title == "f"


@pytest.mark.parametrize(
    ("fmt", "kind"), [("email", "email"), ("uri", "uri"), ("date", "date"), ("date-time", "date-time")]
)
def test_string_formats(fmt: str, kind: str) -> None:
    assert one({"type": "string", "format": fmt}).kind == kind


def test_number_and_integer_shapes() -> None:
    n = one({"type": "number", "minimum": 0.5, "maximum": 10, "default": 2.5})
    assert (n.kind, n.minimum, n.maximum, n.default) == ("number", 0.5, 10, 2.5)
    i = one({"type": "integer", "minimum": 1, "maximum": 5, "default": 3.0})
    assert (i.kind, i.minimum, i.maximum, i.default) == ("integer", 1, 5, 3)
    assert isinstance(i.default, int)


def test_exclusive_bounds() -> None:
    f = one({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1})
    assert (f.exclusive_minimum, f.exclusive_maximum, f.minimum, f.maximum) == (0, 1, None, None)


def test_draft4_boolean_exclusive_bounds_are_honoured() -> None:
    f = one(
        {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1, "exclusiveMaximum": False}
    )
    assert (f.exclusive_minimum, f.minimum, f.maximum, f.exclusive_maximum) == (0, None, 1, None)


def test_boolean_shape() -> None:
    f = one({"type": "boolean", "default": True, "title": "Agree"})
    assert (f.kind, f.default, f.title) == ("boolean", True, "Agree")


def test_untitled_enum() -> None:
    f = one({"type": "string", "enum": ["red", "green"], "default": "green"})
    assert f.kind == "choice"
    assert f.choices == (Choice("red", "red"), Choice("green", "green"))
    assert f.default == "green"


def test_titled_one_of() -> None:
    f = one({"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]})
    assert f.kind == "choice"
    assert f.choices == (Choice("s", "Small"), Choice("l", "Large"))


def test_legacy_enum_names() -> None:
    f = one({"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]})
    assert f.choices == (Choice("s", "Small"), Choice("l", "Large"))
    assert rules_of({"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}) == set()


def test_multi_select_with_items_enum() -> None:
    f = one(
        {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2}
    )
    assert f.kind == "multi"
    assert [c.value for c in f.choices] == ["a", "b", "c"]
    assert (f.min_items, f.max_items) == (1, 2)


def test_multi_select_with_items_any_of_and_default() -> None:
    f = one(
        {
            "type": "array",
            "items": {"anyOf": [{"const": "a", "title": "Apple"}, {"const": "b", "title": "Banana"}]},
            "default": ["b"],
        }
    )
    assert f.choices == (Choice("a", "Apple"), Choice("b", "Banana"))
    assert f.default == ["b"]


def test_empty_properties_is_a_pure_confirmation() -> None:
    spec = parse_schema({"type": "object", "properties": {}})
    assert spec.fields == ()
    assert spec.problems == ()


def test_top_level_title_and_description() -> None:
    spec = parse_schema(obj({}, title="Booking", description="Pick a slot"))
    assert (spec.title, spec.description) == ("Booking", "Pick a slot")


def test_form_spec_accessors() -> None:
    spec = parse_schema(obj({"a": {"type": "string"}, "b": {}}))
    assert spec.field("a").kind == "text"
    with pytest.raises(KeyError):
        spec.field("nope")
    assert spec.errors == ()
    assert [p.rule for p in spec.warnings] == ["property-type-missing"]


# -- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("schema", [None, "x", 3, ["type", "object"], True])
def test_schema_not_object(schema: object) -> None:
    spec = parse_schema(schema)
    assert found(schema) == {("error", "schema-not-object", None)}
    assert spec.fields == ()


@pytest.mark.parametrize("type_", ["array", "string", None, ["object"]])
def test_top_level_type(type_: object) -> None:
    schema = {"type": type_, "properties": {}} if type_ is not None else {"properties": {}}
    assert found(schema) == {("error", "top-level-type", None)}


@pytest.mark.parametrize("key", ["oneOf", "anyOf", "allOf", "not"])
def test_top_level_combinator(key: str) -> None:
    assert found(obj({}, **{key: [{"type": "object"}]})) == {("error", "top-level-combinator", None)}
    message = parse_schema(obj({}, **{key: {"x": 1}})).problems[0].message
    assert key in message


@pytest.mark.parametrize("value", [False, [], {}, None])
@pytest.mark.parametrize("key", ["oneOf", "anyOf", "allOf", "not"])
def test_top_level_combinator_false_or_empty_is_fine(key: str, value: object) -> None:
    assert found(obj({}, **{key: value})) == set()


@pytest.mark.parametrize("properties", [[], "x", 1, True])
def test_properties_not_object(properties: object) -> None:
    assert found({"type": "object", "properties": properties}) == {("error", "properties-not-object", None)}


@pytest.mark.parametrize("prop", ["string", 1, None, [], True])
def test_property_not_object(prop: object) -> None:
    spec = parse_schema(obj({"p": prop, "q": {"type": "string"}}))
    assert {(p.severity, p.rule, p.property) for p in spec.problems} == {
        ("error", "property-not-object", "p")
    }
    assert [f.name for f in spec.fields] == ["q"]


def test_property_name_not_a_string() -> None:
    assert found({"type": "object", "properties": {1: {"type": "string"}}}) == {
        ("error", "property-name", None)
    }


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "object", "properties": {}},
        {"type": "array"},
        {"type": "array", "items": {"type": "string"}},
        {"type": "array", "items": "x"},
        {"type": "null"},
        {"type": "file"},
        {"type": 3},
        {"type": {"x": 1}},
        {"type": ["object", "string"]},
    ],
)
def test_property_type_errors(prop: dict[str, Any]) -> None:
    spec = parse_schema(obj({"p": prop}))
    errors = [p for p in spec.problems if p.severity == "error"]
    assert [(p.rule, p.property) for p in errors] == [("property-type", "p")]
    assert "string, number, integer, boolean" in errors[0].message
    assert spec.fields == ()


def test_validate_schema_raises_schema_error_with_code_and_problems() -> None:
    schema = obj({"p": {"type": "object"}, "q": {}})
    with pytest.raises(SchemaError) as info:
        validate_schema(schema)
    assert info.value.code == -32602
    assert {p.rule for p in info.value.problems} == {"property-type", "property-type-missing"}
    assert "property-type" in str(info.value)
    assert "'p'" in str(info.value)


def test_validate_schema_returns_the_spec_with_only_warnings() -> None:
    spec = validate_schema(obj({"q": {}}))
    assert isinstance(spec, FormSpec)
    assert [f.name for f in spec.fields] == ["q"]


def test_check_schema_lists_errors_and_warnings() -> None:
    problems = check_schema(obj({"p": {"type": "object"}, "q": {}}))
    assert all(isinstance(p, Problem) for p in problems)
    assert {(p.severity, p.rule) for p in problems} == {
        ("error", "property-type"),
        ("warning", "property-type-missing"),
    }


def test_problem_str_names_rule_and_property() -> None:
    assert str(Problem("warning", "x-rule", "bad", "age")) == "warning [x-rule] property 'age': bad"
    assert str(Problem("error", "y-rule", "bad")) == "error [y-rule] schema: bad"


# -- warnings --------------------------------------------------------------------------------------


def test_properties_missing() -> None:
    spec = parse_schema({"type": "object"})
    assert found({"type": "object"}) == {("warning", "properties-missing", None)}
    assert spec.fields == () and spec.ok


def test_property_without_type_renders_as_text() -> None:
    assert rules_of({"title": "Nick"}) == {("warning", "property-type-missing")}
    assert one({"title": "Nick"}).kind == "text"


def test_property_without_type_with_enum_or_one_of_is_a_choice() -> None:
    assert one({"enum": ["a", "b"]}).kind == "choice"
    assert one({"oneOf": [{"const": "a", "title": "A"}]}).kind == "choice"


def test_type_list_only_first_counts() -> None:
    assert rules_of({"type": ["integer", "string"]}) == {("warning", "property-type-list")}
    assert one({"type": ["integer", "string"]}).kind == "integer"
    assert rules_of({"type": []}) == {("warning", "property-type-list"), ("warning", "property-type-missing")}


@pytest.mark.parametrize("fmt", ["hostname", "ipv4", "uuid", 3, "EMAIL"])
def test_unknown_format_renders_as_text(fmt: object) -> None:
    assert rules_of({"type": "string", "format": fmt}) == {("warning", "format-unknown")}
    assert one({"type": "string", "format": fmt}).kind == "text"


@pytest.mark.parametrize(
    ("prop", "attr"),
    [
        ({"type": "string", "minLength": -1}, "min_length"),
        ({"type": "string", "minLength": 1.5}, "min_length"),
        ({"type": "string", "maxLength": "10"}, "max_length"),
        ({"type": "string", "maxLength": True}, "max_length"),
        ({"type": "number", "minimum": "0"}, "minimum"),
        ({"type": "number", "maximum": True}, "maximum"),
        ({"type": "number", "maximum": float("nan")}, "maximum"),
        ({"type": "integer", "exclusiveMinimum": "1"}, "exclusive_minimum"),
        ({"type": "array", "items": {"enum": ["a"]}, "minItems": -2}, "min_items"),
        ({"type": "array", "items": {"enum": ["a"]}, "maxItems": [1]}, "max_items"),
    ],
)
def test_bad_constraints_are_ignored(prop: dict[str, Any], attr: str) -> None:
    assert rules_of(prop) == {("warning", "constraint-invalid")}
    assert getattr(one(prop), attr) is None


def test_integral_float_counts_are_accepted() -> None:
    assert one({"type": "string", "minLength": 2.0}).min_length == 2
    assert rules_of({"type": "string", "minLength": 2.0}) == set()


@pytest.mark.parametrize(
    ("prop", "attrs"),
    [
        ({"type": "string", "minLength": 5, "maxLength": 2}, ("min_length", "max_length")),
        ({"type": "number", "minimum": 5, "maximum": 2}, ("minimum", "maximum")),
        ({"type": "number", "exclusiveMinimum": 2, "maximum": 2}, ("exclusive_minimum", "maximum")),
        ({"type": "integer", "minimum": 3, "exclusiveMaximum": 3}, ("minimum", "exclusive_maximum")),
        (
            {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2, "maxItems": 1},
            ("min_items", "max_items"),
        ),
        ({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 3}, ("min_items",)),
    ],
)
def test_contradictory_constraints_are_ignored(prop: dict[str, Any], attrs: tuple[str, ...]) -> None:
    assert rules_of(prop) == {("warning", "constraint-contradictory")}
    f = one(prop)
    assert all(getattr(f, a) is None for a in attrs)


def test_equal_inclusive_bounds_are_fine() -> None:
    assert rules_of({"type": "integer", "minimum": 3, "maximum": 3}) == set()


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "default": 3},
        {"type": "number", "default": "3"},
        {"type": "number", "default": True},
        {"type": "integer", "default": 2.5},
        {"type": "boolean", "default": "true"},
        {"type": "string", "enum": ["a"], "default": "b"},
        {"type": "string", "enum": ["a"], "default": ["a"]},
        {"type": "array", "items": {"enum": ["a"]}, "default": "a"},
        {"type": "array", "items": {"enum": ["a"]}, "default": [1]},
        {"type": "array", "items": {"enum": ["a"]}, "default": ["a", "z"]},
        {"type": "string", "format": "date", "default": "2024-02-30"},
        {"type": "string", "format": "date-time", "default": "2024-01-05T10:00:00"},
    ],
)
def test_default_of_wrong_type_is_ignored(prop: dict[str, Any]) -> None:
    assert rules_of(prop) == {("warning", "default-invalid")}
    assert one(prop).default is MISSING


@pytest.mark.parametrize(
    ("prop", "message"),
    [
        ({"type": "string", "minLength": 5, "default": "abc"}, "must be at least 5 characters"),
        ({"type": "string", "maxLength": 2, "default": "abc"}, "must be at most 2 characters"),
        ({"type": "string", "pattern": "^[0-9]+$", "default": "abc"}, "must match the pattern ^[0-9]+$"),
        ({"type": "string", "format": "email", "default": "nobody"}, "not a valid email address"),
        ({"type": "string", "format": "uri", "default": "example.com"}, "not a valid URI"),
        ({"type": "integer", "maximum": 10, "default": 11}, "must be at most 10"),
        ({"type": "number", "exclusiveMinimum": 0, "default": 0}, "must be more than 0"),
        (
            {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 1, "default": ["a", "b"]},
            "choose at most 1",
        ),
    ],
)
def test_default_violating_constraints_is_kept_but_flagged(prop: dict[str, Any], message: str) -> None:
    problems = [p for p in parse_schema(obj({"f": prop})).problems if p.property == "f"]
    assert [(p.severity, p.rule) for p in problems] == [("warning", "default-constraint")]
    assert message in problems[0].message
    assert one(prop).default == prop["default"]


def test_required_naming_unknown_properties() -> None:
    schema = obj({"a": {"type": "string"}}, required=["a", "ghost"])
    assert found(schema) == {("warning", "required-unknown", "ghost")}
    assert parse_schema(schema).fields[0].required


@pytest.mark.parametrize("required", ["a", {"a": 1}, 3, True])
def test_required_not_a_list(required: object) -> None:
    spec = parse_schema(obj({"a": {"type": "string"}}, required=required))
    assert {(p.severity, p.rule) for p in spec.problems} == {("warning", "required-invalid")}
    assert not spec.fields[0].required


def test_required_with_non_string_entries() -> None:
    spec = parse_schema(obj({"a": {"type": "string"}}, required=[1, "a"]))
    assert {(p.severity, p.rule) for p in spec.problems} == {("warning", "required-invalid")}
    assert spec.fields[0].required


def test_required_null_is_no_requirement() -> None:
    assert found(obj({"a": {"type": "string"}}, required=None)) == set()


@pytest.mark.parametrize("names", [["Only one"], "Small,Large", ["Small", 2], None])
def test_enum_names_mismatch_is_ignored(names: object) -> None:
    prop = {"type": "string", "enum": ["s", "l"], "enumNames": names}
    assert rules_of(prop) == {("warning", "enum-names-mismatch")}
    assert one(prop).choices == (Choice("s", "s"), Choice("l", "l"))


def test_enum_names_align_with_members_even_when_some_are_skipped() -> None:
    f = one({"type": "string", "enum": ["s", 2, "l"], "enumNames": ["Small", "Two", "Large"]})
    assert f.choices == (Choice("s", "Small"), Choice("l", "Large"))


def test_malformed_one_of_entries_are_skipped() -> None:
    prop = {
        "type": "string",
        "oneOf": [{"const": "a", "title": "A"}, {"title": "no const"}, "x", {"const": 1, "title": "One"}],
    }
    f = one(prop)
    assert f.choices == (Choice("a", "A"),)
    problems = [p for p in parse_schema(obj({"f": prop})).problems]
    assert [(p.rule, p.property) for p in problems] == [("choice-invalid", "f")] * 3


def test_one_of_title_missing_or_bad_shows_the_value() -> None:
    f = one({"type": "string", "oneOf": [{"const": "a"}, {"const": "b", "title": 7}]})
    assert f.choices == (Choice("a", "a"), Choice("b", "b"))
    assert rules_of({"type": "string", "oneOf": [{"const": "a"}]}) == set()
    assert rules_of({"type": "string", "oneOf": [{"const": "b", "title": 7}]}) == {
        ("warning", "choice-invalid")
    }


def test_malformed_any_of_entries_are_skipped() -> None:
    prop = {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": None}, []]}}
    assert [c.value for c in one(prop).choices] == ["a"]
    assert rules_of(prop) == {("warning", "choice-invalid")}


def test_enum_with_non_string_members_skips_them() -> None:
    prop = {"type": "string", "enum": ["a", 1, None, True, "b"]}
    assert [c.value for c in one(prop).choices] == ["a", "b"]
    assert rules_of(prop) == {("warning", "choice-invalid")}


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "enum": []},
        {"type": "string", "enum": [1, 2]},
        {"type": "string", "oneOf": []},
        {"type": "array", "items": {"anyOf": []}},
        {"type": "array", "items": {"enum": []}},
    ],
)
def test_empty_choice_lists_render_with_a_warning(prop: dict[str, Any]) -> None:
    f = one(prop)
    assert f.choices == ()
    assert ("warning", "choices-empty") in rules_of(prop)
    assert all(severity == "warning" for severity, _ in rules_of(prop))


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "enum": "a,b"},
        {"type": "string", "oneOf": {"const": "a"}},
        {"type": "array", "items": {"anyOf": "a"}},
    ],
)
def test_choice_lists_that_are_not_lists(prop: dict[str, Any]) -> None:
    assert rules_of(prop) == {("warning", "choice-invalid"), ("warning", "choices-empty")}
    assert one(prop).choices == ()


def test_duplicate_choices_are_skipped() -> None:
    prop = {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "a", "title": "Again"}]}
    assert one(prop).choices == (Choice("a", "A"),)
    assert rules_of(prop) == {("warning", "choice-duplicate")}


def test_enum_and_one_of_together_use_one_of() -> None:
    prop = {"type": "string", "enum": ["x"], "oneOf": [{"const": "a", "title": "A"}]}
    assert one(prop).choices == (Choice("a", "A"),)
    assert rules_of(prop) == {("warning", "choices-conflict")}


@pytest.mark.parametrize("type_", ["number", "integer", "boolean"])
def test_enum_on_non_string_types_is_ignored(type_: str) -> None:
    prop = {"type": type_, "enum": [1, 2]}
    assert rules_of(prop) == {("warning", "choices-ignored")}
    f = one(prop)
    assert f.kind == type_ and f.choices == ()


def test_items_one_of_is_accepted_as_any_of() -> None:
    prop = {"type": "array", "items": {"oneOf": [{"const": "a", "title": "A"}]}}
    assert one(prop).choices == (Choice("a", "A"),)
    assert rules_of(prop) == {("warning", "items-oneof")}


def test_items_enum_names_are_honoured() -> None:
    prop = {"type": "array", "items": {"enum": ["a"], "enumNames": ["Apple"]}}
    assert one(prop).choices == (Choice("a", "Apple"),)


def test_multi_default_is_deduplicated() -> None:
    assert one({"type": "array", "items": {"enum": ["a", "b"]}, "default": ["b", "b", "a"]}).default == [
        "b",
        "a",
    ]


@pytest.mark.parametrize("key", ["title", "description"])
def test_annotations_that_are_not_strings(key: str) -> None:
    prop = {"type": "string", key: ["x"]}
    assert rules_of(prop) == {("warning", "annotation-invalid")}
    f = one(prop)
    assert (f.title, f.description) == ("f", "")


def test_top_level_annotation_not_a_string() -> None:
    assert found(obj({}, title=5)) == {("warning", "annotation-invalid", None)}


# -- patterns --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        3,
        ["^a$"],
        "(",
        "[a-",
        "a{2,1}",
        "a" * (MAX_PATTERN_LENGTH + 1),
        "(a{1000}){1000}",
        "x{4294967294}",
        "((a{100}){100}){100}",
        "a{99999999999999999999}",
    ],
)
def test_unusable_patterns_are_ignored(pattern: object) -> None:
    prop = {"type": "string", "pattern": pattern}
    problems = [p for p in parse_schema(obj({"f": prop})).problems]
    assert [(p.severity, p.rule, p.property) for p in problems] == [("warning", "pattern-invalid", "f")]
    assert one(prop).pattern is None


def test_pattern_at_the_length_limit_is_kept() -> None:
    pattern = "a" * MAX_PATTERN_LENGTH
    assert one({"type": "string", "pattern": pattern}).pattern == pattern


@pytest.mark.parametrize(
    "pattern", [r"^\d{4}-\d{2}$", r"^.{1,100}@.{1,100}\..{1,100}$", r"[{]{2}", r"^(a|b){3,}$", r"\p{L}+"]
)
def test_ordinary_patterns_are_kept(pattern: str) -> None:
    assert one({"type": "string", "pattern": pattern}).pattern == pattern
    assert rules_of({"type": "string", "pattern": pattern}) == set()


@pytest.mark.timeout(30)
def test_catastrophic_pattern_on_the_default_times_out_as_a_warning() -> None:
    prop = {"type": "string", "pattern": "^(x+x+)+y$", "default": "x" * 5000}
    assert rules_of(prop) == {("warning", "pattern-timeout")}
    assert one(prop).default == "x" * 5000


# -- initial values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "string"}, ""),
        ({"type": "string", "default": "hi"}, "hi"),
        ({"type": "string", "format": "email", "default": "a@b.co"}, "a@b.co"),
        ({"type": "integer"}, ""),
        ({"type": "integer", "default": 4}, "4"),
        ({"type": "integer", "default": 4.0}, "4"),
        ({"type": "number", "default": 4}, "4"),
        ({"type": "number", "default": 4.0}, "4"),
        ({"type": "number", "default": 0.25}, "0.25"),
        ({"type": "boolean"}, False),
        ({"type": "boolean", "default": True}, True),
        ({"type": "string", "format": "date"}, None),
        ({"type": "string", "format": "date", "default": "2024-02-29"}, dt.date(2024, 2, 29)),
        ({"type": "string", "format": "date-time"}, None),
        (
            {"type": "string", "format": "date-time", "default": "2024-01-05T10:00:00+02:00"},
            dt.datetime(2024, 1, 5, 10, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        ),
        ({"type": "string", "enum": ["a", "b"]}, None),
        ({"type": "string", "enum": ["a", "b"], "default": "b"}, "b"),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, ()),
        ({"type": "array", "items": {"enum": ["a", "b"]}, "default": ["b"]}, ("b",)),
    ],
)
def test_initial_value(prop: dict[str, Any], expected: object) -> None:
    value = initial_value(one(prop))
    assert value == expected
    assert type(value) is type(expected)


def test_parse_schema_never_raises_on_odd_mappings() -> None:
    class Weird(dict):  # type: ignore[type-arg]
        def __bool__(self) -> bool:
            raise RuntimeError("no truth")

    spec = parse_schema(obj({}, anyOf=Weird(x=1)))
    assert [p.rule for p in spec.problems] == ["top-level-combinator"]


def test_field_specs_are_hashable_even_with_a_list_default() -> None:
    f = one({"type": "array", "items": {"enum": ["a"]}, "default": ["a"]})
    again = one({"type": "array", "items": {"enum": ["a"]}, "default": ["a"]})
    assert f == again and {f: 1}[again] == 1
    assert f != one({"type": "array", "items": {"enum": ["a"]}})


def test_messages_quote_only_short_server_values() -> None:
    long_type = "x" * 500
    problems = check_schema({"type": long_type, "properties": {"p": {"type": ["y" * 500]}}})
    assert {p.rule for p in problems} == {"top-level-type", "property-type", "property-type-list"}
    assert all(len(p.message) < 300 for p in problems)
    assert "(got a string)" in problems[0].message
